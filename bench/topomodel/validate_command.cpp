// topomodel validate: the model against published measurements (model/published_figures.cpp).
// Exit status 1 if a checked case is off by more than 20%, the Table 1 trend by more than 5%, or a
// published best placement is not picked where the model's margin exceeds the GEMM model's error.

#include <fmt/format.h>

#include "commands.h"
#include "model/published_figures.h"
#include "report.h"
#include "results_output.h"

namespace ringbench::topomodel {

void add_validate_command(CLI::App& app, Context& context) {
  auto* command = app.add_subcommand("validate", "compare the model with published nccl-tests figures (fitted vs checked)");
  auto output_path = std::make_shared<std::string>();
  command->add_option("-o,--output", *output_path, "append the table to an HDF5 results file");
  command->callback([output_path, &context] {
    ResultsOutput output(*output_path, run_record("validate", context, nullptr, 0));
    const auto rows = model::validation_table();
    print_validation_table(rows);
    int failed = 0;
    for (const auto& r : rows) failed += r.pass() ? 0 : 1;
    const auto runs = model::run_validation_table();
    const auto rankings = model::ranking_checks();
    for (const auto& r : runs) failed += r.pass() ? 0 : 1;
    for (const auto& k : rankings) failed += k.pass() ? 0 : 1;  // a miss with a real margin
    const model::TrendRow trend = model::trend_check(runs);
    failed += trend.pass() ? 0 : 1;
    const model::NegativeMemoryCheck negative = model::negative_memory_check();
    failed += negative.pass() ? 0 : 1;
    fmt::print("# {} case(s): {} fitted, {} checked, {} checked case(s) off by more than {:.0f}%\n", rows.size(),
               std::count_if(rows.begin(), rows.end(), [](const auto& r) { return r.role == model::CaseRole::Fitted; }),
               std::count_if(rows.begin(), rows.end(), [](const auto& r) { return r.role == model::CaseRole::Checked; }),
               failed, 100 * model::kCheckTolerance);
    print_gemm_validation(model::gemm_checks(), model::h200_error_by_class());
    print_attention_core_validation(model::attention_core_checks());
    print_run_validation(runs, rankings, trend);
    fmt::print("#\n# Negative memory check (must NOT fit): {}: {:.1f} GB of {:.1f} usable: {} ({})\n", negative.name,
               negative.memory.total_GB, negative.memory.usable_GB, negative.pass() ? "ok, does not fit" : "OFF, fits",
               negative.why);
    fmt::print("# {} training run(s), {} ranking(s), 1 trend and 1 negative memory check; {} check(s) in all off\n",
               runs.size(), rankings.size(), failed);
    context.exit_status = failed > 0 ? 1 : 0;
    output.write({{&validation_table_def(), validation_rows(output.run_id(), rows)},
                  {&run_validation_table_def(), run_validation_rows(output.run_id(), runs, rankings)}},
                 context.exit_status);
  });
}

}  // namespace ringbench::topomodel
