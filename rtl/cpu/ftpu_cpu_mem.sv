// SPDX-License-Identifier: Apache-2.0
// ftpu_cpu_mem: a single-port 32-bit word memory with byte enables and a
// registered read, the shape of an iCE40 SB_RAM40_4K (Words/256 x 2 of
// them) or any FPGA block RAM. Used for the control core's boot ROM and RAM
// (ftpu_cpu).
//
// A read (req_i && !we_i) returns its word on rdata_o in the next cycle and
// holds it until the next read. A write (req_i && we_i) writes the bytes
// whose be_i bit is set. InitFile, when not "", is a $readmemh image (one
// 32-bit word per entry, `@` word addresses from 0) loaded at start-up: in
// simulation, and into the bitstream by synthesis. Without it the contents
// start undefined. InitFile "embedded" takes the image from
// ftpu_fw_rom.svh on the include path instead (build/fw/, made by
// scripts/fw/hex2svh.sh) when FTPU_FW_ROM_SVH is defined: the simulated
// devices (mk/models.mk) and the board builds (mk/boards.mk) carry the
// firmware in the design, so nothing reads a file at run time.
module ftpu_cpu_mem #(
  parameter int Words    = 1024,
  parameter     InitFile = "",
  localparam int AddrW   = $clog2(Words)
) (
  input  logic             clk_i,
  input  logic             req_i,
  input  logic             we_i,
  input  logic [AddrW-1:0] addr_i,
  input  logic [3:0]       be_i,
  input  logic [31:0]      wdata_i,
  output logic [31:0]      rdata_o
);
  logic [31:0] mem [Words];
  logic [31:0] rdata_q;

  initial begin
`ifdef FTPU_FW_ROM_SVH
    // (A string parameter compares as bits: "" is narrower than "embedded".)
    /* verilator lint_off WIDTH */
    if (InitFile == "embedded") begin
    /* verilator lint_on WIDTH */
      for (int i = 0; i < Words; i++) mem[i] = '0;
`include "ftpu_fw_rom.svh"
    end else
`endif
    if (InitFile != "") $readmemh(InitFile, mem);
  end

  always_ff @(posedge clk_i) begin
    if (req_i && we_i) begin
      if (be_i[0]) mem[addr_i][7:0]   <= wdata_i[7:0];
      if (be_i[1]) mem[addr_i][15:8]  <= wdata_i[15:8];
      if (be_i[2]) mem[addr_i][23:16] <= wdata_i[23:16];
      if (be_i[3]) mem[addr_i][31:24] <= wdata_i[31:24];
    end
    if (req_i && !we_i) rdata_q <= mem[addr_i];
  end

  assign rdata_o = rdata_q;
endmodule
