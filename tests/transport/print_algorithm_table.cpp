// Prints the algorithm table (algorithm_table.h), markers included; scripts/docs_generate.py puts
// it into docs/algorithms.md, and AlgorithmTable.DocsCarryTheGeneratedTable checks it is there.
#include <iostream>

#include "transport/algorithm_table.h"

int main() {
  std::cout << ringbench::kTableBeginMarker << "\n"
            << ringbench::documented_algorithm_table() << ringbench::kTableEndMarker << "\n";
}
