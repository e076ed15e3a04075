// SPDX-License-Identifier: Apache-2.0
// ftpu_rv32i_regfile: the 32 x 32-bit register file of ftpu_rv32i as one
// memory with one write port and one registered read port (1W1R), the shape
// an iCE40 SB_RAM40_4K takes (two of them, 16 bits each), so the register
// file costs no logic cells. The core reads its two source registers one
// after the other.
//
// A read (re_i) returns mem[raddr_i] on rdata_o from the next cycle on and
// holds it until the next read. x0 reads as zero because it is never
// written (writes to address 0 are dropped) and the memory starts at zero:
// FPGA block RAM is initialised with the bitstream, and a reset of the core
// does not touch it. A read and a write of the same address in one cycle
// do not happen in ftpu_rv32i (not defined here).
module ftpu_rv32i_regfile (
  input  logic        clk_i,
  input  logic        re_i,
  input  logic [4:0]  raddr_i,
  output logic [31:0] rdata_o,
  input  logic        we_i,
  input  logic [4:0]  waddr_i,
  input  logic [31:0] wdata_i
);
  logic [31:0] mem [32];
  logic [31:0] rdata_q;

  initial begin
    for (int i = 0; i < 32; i++) mem[i] = 32'd0;
  end

  // No reset on the memory or its read register: block RAM has neither.
  always_ff @(posedge clk_i) begin
    if (we_i && waddr_i != 5'd0) mem[waddr_i] <= wdata_i;
    if (re_i) rdata_q <= mem[raddr_i];
  end

  assign rdata_o = rdata_q;
endmodule
