#pragma once
#include "../algorithm.h"

namespace ringbench {
const Algorithm& ring_allgather();
}
