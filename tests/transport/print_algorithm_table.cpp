// Prints the README's algorithm table (algorithm_table.h), markers included, for pasting into
// README.md; AlgorithmTable.ReadmeCarriesTheGeneratedTable checks it stays pasted.
#include <iostream>

#include "transport/algorithm_table.h"

int main() {
  std::cout << ringbench::kTableBeginMarker << "\n"
            << ringbench::readme_algorithm_table() << ringbench::kTableEndMarker << "\n";
}
