// SPDX-License-Identifier: Apache-2.0
// ftpu_board_reset: the reset a board top gives the device. Held after
// configuration until the clock is stable (locked_i, e.g. a PLL's lock) and
// for 2^HoldBits cycles more, and while the board's button (btn_ni, active
// low) is pressed; released synchronously to clk_i. The button is
// synchronized first (it is an asynchronous pin).
module ftpu_board_reset #(
  parameter int HoldBits = 10
) (
  input  logic clk_i,
  input  logic locked_i,
  input  logic btn_ni,
  output logic rst_no
);
  logic [1:0]        btn_sync_q;
  logic [HoldBits:0] hold_q;
  // No reset exists before this one: FPGA flops start at their init value.
  initial begin
    btn_sync_q = 2'b00;
    hold_q     = '0;
  end

  always_ff @(posedge clk_i) begin
    btn_sync_q <= {btn_sync_q[0], btn_ni};
    if (!locked_i || !btn_sync_q[1]) hold_q <= '0;
    else if (!hold_q[HoldBits]) hold_q <= hold_q + 1'b1;
  end

  assign rst_no = hold_q[HoldBits];
endmodule
