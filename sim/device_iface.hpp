// SPDX-License-Identifier: Apache-2.0
// device_iface.hpp - what the generic ftpu_sim_device_* functions
// (device_shim.cpp) need from a device model: the byte-stream device
// (device_shim.cpp) and a board top behind its pins (board_shim.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "ftpu_sim.h"

namespace ftpu {

// What the generic C functions need from any device model. Defined the
// same in every device shim (one definition under the ODR).
struct DeviceIface {
	virtual ~DeviceIface() = default;
	virtual void get_config(ftpu_sim_device_config *cfg) const = 0;
	virtual void set_pace(const ftpu_sim_device_pace *p) = 0;
	virtual void push(const uint8_t *bytes, size_t n) = 0;
	virtual size_t in_queued() const = 0;
	virtual size_t pull(uint8_t *buf, size_t cap) = 0;
	virtual size_t out_queued() const = 0;
	virtual void run(uint64_t n) = 0;
	virtual bool run_until_idle(uint64_t max_cycles, uint64_t *ran) = 0;
	virtual uint32_t credit() const = 0;
	virtual bool idle() const = 0;
	virtual uint32_t reg_read(unsigned addr) = 0;
	virtual void reg_write(unsigned addr, uint32_t value) = 0;
	virtual void read_counters(ftpu_sim_device_counters *c) = 0;
	virtual void get_stats(ftpu_sim_device_stats *st) const = 0;
};

} // namespace ftpu
