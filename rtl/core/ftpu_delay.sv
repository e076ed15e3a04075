// SPDX-License-Identifier: Apache-2.0
// ftpu_delay: a Depth-cycle delay line (Depth 0 is a wire). With Reset set
// the stages clear on reset; data lines leave it off to save resources.
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
  end else begin : g_stages
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
  end
endmodule
