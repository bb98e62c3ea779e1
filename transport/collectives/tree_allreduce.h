#pragma once
#include "../algorithm.h"

namespace ringbench {
const Algorithm& tree_allreduce();
}
