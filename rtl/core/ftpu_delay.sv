// SPDX-License-Identifier: Apache-2.0
// ftpu_delay: a Depth-cycle delay line (Depth 0 is a wire).
//
// Up to Depth 2 it is a chain of registers (optionally reset). Longer data
// lines are a ring of Depth-1 words read before they are rewritten, into one
// output register: the shape FPGA tools map to shift-register LUTs or block
// RAM in read-first mode, and O(1) work per cycle in simulation, where a
// shifting chain costs the whole line. Lines with Reset stay registers.
module ftpu_delay #(
  parameter int Width = 1,
  parameter int Depth = 1,
  parameter bit Reset = 1'b0
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic [Width-1:0] d_i,
  output logic [Width-1:0] q_o
);
  if (Depth == 0) begin : g_wire
    assign q_o = d_i;
    logic unused;
    assign unused = clk_i ^ rst_ni;
  end else if (Depth <= 2 || Reset) begin : g_chain
    logic [Depth*Width-1:0] stages_q, stages_d;
    if (Depth == 1) begin : g_one
      assign stages_d = d_i;
    end else begin : g_many
      assign stages_d = {stages_q[(Depth-1)*Width-1:0], d_i};
    end
    if (Reset) begin : g_reset
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) stages_q <= '0;
        else         stages_q <= stages_d;
      end
    end else begin : g_no_reset
      always_ff @(posedge clk_i) stages_q <= stages_d;
      logic unused;
      assign unused = rst_ni;
    end
    assign q_o = stages_q[Depth*Width-1 -: Width];
  end else begin : g_ring
    // Slot ptr_q was written Depth-1 cycles ago: read it into q_q as it is
    // rewritten, and q_q shows it one cycle later, Depth cycles after d_i.
    localparam int Slots = Depth - 1;
    localparam int PtrW = $clog2(Slots);
    logic [Width-1:0] ring_q [Slots];
    logic [PtrW-1:0]  ptr_q;
    logic [Width-1:0] q_q;
    always_ff @(posedge clk_i) begin
      q_q           <= ring_q[ptr_q];
      ring_q[ptr_q] <= d_i;
    end
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni)                        ptr_q <= '0;
      else if (ptr_q == PtrW'(Slots - 1)) ptr_q <= '0;
      else                                ptr_q <= ptr_q + 1'b1;
    end
    assign q_o = q_q;
  end
endmodule
