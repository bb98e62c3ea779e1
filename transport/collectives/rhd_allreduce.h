#pragma once
#include "../algorithm.h"

namespace ringbench {
const Algorithm& rhd_allreduce();
}
