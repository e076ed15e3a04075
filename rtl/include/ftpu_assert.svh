// SPDX-License-Identifier: Apache-2.0
// ftpu_assert.svh: assertion macros for the RTL (docs/core.md, Assertions).
//
// Each macro is a clocked check, skipped while rst_ni is low:
//   VERILATOR     a concurrent assertion, checked in models built with
//                 --assert (mk/models.mk): a failure prints "%Error: ...
//                 Assertion failed" and stops the simulation
//   FORMAL        assert property, for yosys -formal / SymbiYosys
//   SYNTHESIS     nothing (Yosys defines it; so do the other synthesizers)
//
//   `FTPU_ASSERT(name, clk, rst_n, expr)
//       expr holds in every cycle.
//   `FTPU_ASSERT_STREAM(name, clk, rst_n, valid, ready, data)
//       valid/ready: once valid is high without ready, valid stays high and
//       data stay the same until ready.
//   `FTPU_ASSERT_ONEHOT0(name, clk, rst_n, vec)
//       at most one bit of vec is set.
`ifndef FTPU_ASSERT_SVH
`define FTPU_ASSERT_SVH

`ifdef FORMAL
  // (Yosys takes assert property inside a clocked block, not @ in it.)
  `define FTPU_ASSERT(name, clk, rst_n, expr) \
    always @(posedge clk) if (rst_n) name: assert property (expr);
`elsif SYNTHESIS
  `define FTPU_ASSERT(name, clk, rst_n, expr)
`elsif VERILATOR
  `define FTPU_ASSERT(name, clk, rst_n, expr) \
    name: assert property (@(posedge clk) !(rst_n) || (expr)) \
      else $error("%m: %s", `"name`");
`else
  `define FTPU_ASSERT(name, clk, rst_n, expr)
`endif

`define FTPU_ASSERT_STREAM(name, clk, rst_n, valid, ready, data) \
  `FTPU_ASSERT(name, clk, rst_n, \
               !$past((valid) && !(ready)) || ((valid) && (data) == $past(data)))

`define FTPU_ASSERT_ONEHOT0(name, clk, rst_n, vec) \
  `FTPU_ASSERT(name, clk, rst_n, $onehot0(vec))

`endif
