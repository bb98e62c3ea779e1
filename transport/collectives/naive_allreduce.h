#pragma once
#include "../algorithm.h"

namespace ringbench {
const Algorithm& naive_allreduce();
}
