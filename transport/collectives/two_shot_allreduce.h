#pragma once
#include "../algorithm.h"

namespace ringbench {
const Algorithm& two_shot_allreduce();
}
