#pragma once
#include "../algorithm.h"

namespace ringbench {
const Algorithm& binomial_reduce();
}
