// SPDX-License-Identifier: Apache-2.0
// ftpu_soc_uart: the soft device's serial line, an MMIO peripheral of the
// control core (ftpu_soc's EXT window; registers SOC_UART_RX, SOC_UART_TX,
// SOC_BUSY of spec/ftpu.toml, docs/soft_device.md).
//
//   uart_rx_i -> ftpu_phy_uart_rx -> RX FIFO (block RAM) -> UART_RX reads
//   uart_tx_o <- ftpu_phy_uart_tx <- TX FIFO (block RAM) <- UART_TX writes
//
// The FIFOs sit in block RAM, not flip-flops, because on the iCE40UP5K
// logic cells are what is short: the firmware moves received bytes into its
// RAM every few hundred cycles, and 512 bytes are 1.7 ms of line at 3 Mbaud.
//
// Bus: an access is held (req_i, we_i, addr_i, wdata_i) until ready_o; it
// acts in its first cycle that it can (a UART_TX write waits while the TX
// FIFO is full) and is ready in the next, with rdata_o.
module ftpu_soc_uart #(
  parameter int unsigned ClockHz = 24000000,
  parameter int unsigned Baud    = 3000000,
  parameter int          Depth   = 512
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        uart_rx_i,
  output logic        uart_tx_o,
  input  logic        req_i,
  input  logic        we_i,
  input  logic [3:2]  addr_i,
  input  logic [7:0]  wdata_i,     // a byte, or bit 0 of BUSY
  output logic        ready_o,
  output logic [31:0] rdata_o,
  output logic        busy_o,      // the busy LED: firmware's flag or bytes waiting
  output logic        rx_byte_o,   // a byte arrived (activity LED)
  output logic        tx_byte_o    // a byte left (activity LED)
);
  localparam logic [3:2] RegRx   = ftpu_pkg::SOC_UART_RX[3:2];
  localparam logic [3:2] RegTx   = ftpu_pkg::SOC_UART_TX[3:2];
  localparam logic [3:2] RegBusy = ftpu_pkg::SOC_BUSY[3:2];

  // ---- receiver ---------------------------------------------------------------------
  logic       rx_valid, rx_empty, rx_full, rx_overrun;
  logic [7:0] rx_data, rx_rdata;
  /* verilator lint_off UNUSEDSIGNAL */
  logic       rx_frame_err, rx_break, rx_busy, unused;
  /* verilator lint_on UNUSEDSIGNAL */

  ftpu_phy_uart_rx #(.ClockHz(ClockHz), .Baud(Baud)) u_rx (
    .clk_i,
    .rst_ni,
    .rx_i       (uart_rx_i),
    .valid_o    (rx_valid),
    .data_o     (rx_data),
    .frame_err_o(rx_frame_err),
    .break_o    (rx_break),
    .busy_o     (rx_busy)
  );

  // A byte lost to a full FIFO or a framing error fails its frame's CRC,
  // which the protocol reports; no counter here (logic cells are scarce).
  assign unused = ^{rx_frame_err, rx_break, rx_busy, rx_full, rx_overrun};

  logic act, acted_q, rx_pop, rx_popped_q;
  ftpu_soc_fifo #(.Depth(Depth)) u_rx_fifo (
    .clk_i,
    .rst_ni,
    .push_i   (rx_valid),
    .wdata_i  (rx_data),
    .pop_i    (rx_pop),
    .rdata_o  (rx_rdata),
    .empty_o  (rx_empty),
    .full_o   (rx_full),
    .overrun_o(rx_overrun)
  );

  // ---- transmitter -------------------------------------------------------------------
  logic       tx_push, tx_empty, tx_full, tx_pop, tx_have_q, tx_ready, tx_busy;
  logic [7:0] tx_rdata;
  /* verilator lint_off UNUSEDSIGNAL */
  logic       tx_overrun;
  /* verilator lint_on UNUSEDSIGNAL */

  ftpu_soc_fifo #(.Depth(Depth)) u_tx_fifo (
    .clk_i,
    .rst_ni,
    .push_i   (tx_push),
    .wdata_i  (wdata_i[7:0]),
    .pop_i    (tx_pop),
    .rdata_o  (tx_rdata),
    .empty_o  (tx_empty),
    .full_o   (tx_full),
    .overrun_o(tx_overrun)
  );

  // The popped byte is on tx_rdata from the next cycle; it is offered to
  // the transmitter until taken.
  assign tx_pop = !tx_empty && (!tx_have_q || tx_ready);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) tx_have_q <= 1'b0;
    else if (tx_pop) tx_have_q <= 1'b1;
    else if (tx_ready) tx_have_q <= 1'b0;
  end

  ftpu_phy_uart_tx #(.ClockHz(ClockHz), .Baud(Baud)) u_tx (
    .clk_i,
    .rst_ni,
    .valid_i(tx_have_q),
    .ready_o(tx_ready),
    .data_i (tx_rdata),
    .tx_o   (uart_tx_o),
    .busy_o (tx_busy)
  );

  // ---- registers ----------------------------------------------------------------------
  logic busy_q;
  assign act     = req_i && !acted_q && !(we_i && addr_i == RegTx && tx_full);
  assign rx_pop  = act && !we_i && addr_i == RegRx;
  assign tx_push = act && we_i && addr_i == RegTx;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      acted_q     <= 1'b0;
      rx_popped_q <= 1'b0;
      busy_q      <= 1'b0;
    end else begin
      acted_q <= act;
      if (act) rx_popped_q <= rx_pop && !rx_empty;
      // Popping a byte sets the flag, so that the LED never goes dark
      // between the byte leaving the FIFO and the firmware saying busy.
      if (act && we_i && addr_i == RegBusy) busy_q <= wdata_i[0];
      else if (rx_pop && !rx_empty) busy_q <= 1'b1;
    end
  end

  // Read data from registers (the FIFO's is its block RAM's output): the
  // core decodes a fetched word's registers straight off the bus, and the
  // bus mux carries this too.
  logic tx_full_q;
  always_ff @(posedge clk_i) if (act) tx_full_q <= addr_i == RegTx && tx_full;

  assign ready_o = acted_q;
  assign rdata_o = rx_popped_q ? {23'd0, 1'b1, rx_rdata} : {31'd0, tx_full_q};

  assign busy_o    = busy_q || !rx_empty || !tx_empty || tx_have_q || tx_busy;
  assign rx_byte_o = rx_valid;
  assign tx_byte_o = tx_have_q && tx_ready;
endmodule
