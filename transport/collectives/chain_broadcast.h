#pragma once
#include "../algorithm.h"

namespace ringbench {
const Algorithm& chain_broadcast();
}
