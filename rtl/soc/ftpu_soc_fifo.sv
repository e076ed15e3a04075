// SPDX-License-Identifier: Apache-2.0
// ftpu_soc_fifo: a byte FIFO in one block RAM (Depth bytes: 512 is one
// iCE40 SB_RAM40_4K in its 512 x 8 mode), for the soft device's UART.
//
// The read side has the block RAM's registered read: pop_i in cycle t
// (allowed only when !empty_o) puts the oldest byte on rdata_o in cycle
// t+1, where it stays until the next pop. A push into a full FIFO is
// dropped and pulses overrun_o (a serial line cannot wait).
module ftpu_soc_fifo #(
  parameter int Depth = 512,
  localparam int AddrW = $clog2(Depth)
) (
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic       push_i,
  input  logic [7:0] wdata_i,
  input  logic       pop_i,
  output logic [7:0] rdata_o,
  output logic       empty_o,
  output logic       full_o,
  output logic       overrun_o
);
  if (Depth != 1 << AddrW) begin : g_bad_depth
    $error("ftpu_soc_fifo: Depth must be a power of two");
  end

  logic [7:0]     mem [Depth];
  logic [7:0]     rdata_q;
  logic [AddrW:0] wptr_q, rptr_q;  // one bit more than the address: full vs empty
  logic           push, pop;

  assign empty_o   = wptr_q == rptr_q;
  assign full_o    = (wptr_q ^ rptr_q) == {1'b1, {AddrW{1'b0}}};
  assign push      = push_i && !full_o;
  assign pop       = pop_i && !empty_o;
  assign overrun_o = push_i && full_o;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wptr_q <= '0;
      rptr_q <= '0;
    end else begin
      if (push) wptr_q <= wptr_q + 1'b1;
      if (pop)  rptr_q <= rptr_q + 1'b1;
    end
  end

  always_ff @(posedge clk_i) begin
    if (push) mem[wptr_q[AddrW-1:0]] <= wdata_i;
    if (pop)  rdata_q <= mem[rptr_q[AddrW-1:0]];
  end

  assign rdata_o = rdata_q;
endmodule
