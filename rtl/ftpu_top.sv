// SPDX-License-Identifier: Apache-2.0
// ftpu_top: the whole device behind a byte stream in each direction — the
// link (rtl/link/), the control plane (ftpu_control, and with ControlCore the
// control core ftpu_cpu running firmware/) and the data path (ftpu_core). A
// PHY adapter (UART, FT245 FIFO, AXI-Stream) or the simulator drives the byte
// ports; the register port is the control plane's (docs/registers.md).
//
//   bytes -> ftpu_link_rx -+- PROGRAM words (receive buffer, IqWords) -> ftpu_core --+
//                          +- CONTROL mailbox -> ftpu_cpu (or ftpu_control) ---------+
//                          +- error reports  -> ftpu_link_errors ---------------------+
//                                                                                     v
//   bytes <- ftpu_link_tx <- ftpu_link_mux (RESPONSE, ERROR, DATA/EVENT; seq, credit) -+
//
// Between link and core the interface is 32-bit words with valid/ready in
// both directions (frames as w1, w2, payload).
//
// LinkBytes (1 or 4, INFO LINK_BYTES): bytes the link ports move a cycle.
// 1 for the byte-wide PHYs; 4 for the simulated device, which then moves a
// frame a word a cycle end to end, matching the core's one word a cycle
// (a wider port would need a wider core interface to pay off). in_count_i
// says how many of a beat's bytes are valid (from byte 0 on); output beats
// are always full (frames are whole words).
//
// ControlCore (docs/firmware.md):
//   1  the RV32I control core answers CONTROL frames: its firmware (ROM image
//      RomInit, a $readmemh file) reads and writes ftpu_control's registers,
//      whose own CONTROL FSM is left idle. The register port reg_* of this
//      module shares ftpu_control's register interface with the core; it has
//      priority, the core waits (ftpu_cpu reg_gnt_i). The firmware's RESET
//      writes CMD RESET (the same reset_o pulse, counters and faults cleared)
//      and answers once STATE reads IDLE.
//   0  ftpu_control's hardware FSM answers CONTROL frames (protocol 1.0 ops
//      only), as before the control core: for boards too small for the core
//      and its 24 KiB of memory (the iCEBreaker, docs/boards.md).
//
// Counters (ftpu_control): busy = cycles an instruction executes anywhere in
// the core, idle = all other cycles, so cycles = busy + idle; the stall
// counters are subsets of busy (ftpu_core's header says what each counts).
//
// A CONTROL RESET flushes the receive buffer, resets the decoder and, once
// the running units have finished, answers with the credit of an empty
// buffer.
module ftpu_top #(
  // defaults: spec/ftpu.toml's [device.default]
  parameter int          N           = ftpu_pkg::DEFAULT_N,
  parameter int unsigned AddCuts     = ftpu_pkg::DEFAULT_AddCuts,
  parameter int          UbVectors   = ftpu_pkg::DEFAULT_UbVectors,
  parameter int          WmRows      = ftpu_pkg::DEFAULT_WmRows,
  parameter int          AccVectors  = ftpu_pkg::DEFAULT_AccVectors,
  parameter int          BiasVectors = ftpu_pkg::DEFAULT_BiasVectors,
  parameter int          IqWords     = ftpu_pkg::DEFAULT_IqWords,
  parameter int unsigned ClockHz     = ftpu_pkg::DEFAULT_ClockHz,
  parameter int          InFlight    = ftpu_pkg::DEFAULT_InFlight,
  parameter int unsigned VectorUnit  = ftpu_pkg::DEFAULT_VectorUnit,  // docs/vector.md
  parameter int          LinkBytes   = ftpu_pkg::DEFAULT_LinkBytes,   // 1 or 4
  parameter int unsigned InOrder     = ftpu_pkg::DEFAULT_InOrder,     // docs/core.md, In order
  parameter int          ActLanes    = ftpu_pkg::DEFAULT_ActLanes,    // 0: one per column
  parameter int          ColSkew     = ftpu_pkg::DEFAULT_ColSkew,  // 0: activations reach every column at once
  parameter int          PipeRegs    = ftpu_pkg::DEFAULT_PipeRegs,  // 1: registers for the clock of large parts
  parameter int unsigned ControlCore = 1,
  parameter              RomInit     = "",    // the firmware ROM image (ControlCore)
  parameter int          RomWords    = 2048,  // 8 KiB boot ROM
  parameter int          RamWords    = 4096,  // 16 KiB RAM
  localparam int CreditW = $clog2(IqWords + 1),
  localparam int CountW  = $clog2(LinkBytes + 1)
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        in_valid_i,
  output logic        in_ready_o,
  input  logic [8*LinkBytes-1:0] in_data_i,   // byte 0 first
  input  logic [CountW-1:0]      in_count_i,  // bytes valid (LinkBytes > 1)
  output logic        out_valid_o,
  input  logic        out_ready_i,
  output logic [8*LinkBytes-1:0] out_data_o,
  input  logic        reg_req_i,
  input  logic        reg_we_i,
  input  logic [7:0]  reg_addr_i,
  input  logic [31:0] reg_wdata_i,
  output logic [31:0] reg_rdata_o,
  output logic [31:0] credit_o,
  output logic        idle_o
);
  localparam int MaxPayload = ftpu_pkg::LINK_MAX_PAYLOAD;
  localparam int RowDelay = ftpu_pkg::row_delay(AddCuts);

  // ---- link receiver ------------------------------------------------------------
  logic               prog_valid, prog_ready, ctl_valid, ctl_ready;
  logic [31:0]        prog_data, ctl_data;
  logic [CreditW-1:0] credit;
  logic               err_valid, err_ready;
  logic [2:0]         err_code;
  logic [15:0]        err_seq, ack_seq;
  logic [7:0]         err_type;
  logic               soft_reset;

  ftpu_link_rx #(.Bytes(LinkBytes), .Depth(IqWords), .MaxPayload(MaxPayload)) u_rx (
    .clk_i,
    .rst_ni,
    .in_valid_i,
    .in_ready_o,
    .in_data_i,
    .in_count_i,
    .out_valid_o    (prog_valid),
    .out_ready_i    (prog_ready),
    .out_data_o     (prog_data),
    .credit_o       (credit),
    .ctl_valid_o    (ctl_valid),
    .ctl_ready_i    (ctl_ready),
    .ctl_data_o     (ctl_data),
    .ack_seq_o      (ack_seq),
    .flush_i        (soft_reset),
    .err_valid_o    (err_valid),
    .err_ready_i    (err_ready),
    .err_code_o     (err_code),
    .err_seq_o      (err_seq),
    .err_type_o     (err_type),
    .frames_ok_o    (rx_frames_ok),
    .bytes_skipped_o(rx_skipped),
    .err_count_o    (rx_err_count),
    .err_lost_o     (rx_err_lost)
  );
  // The receiver's statistics are for the link tests; the device's counters
  // are ftpu_control's.
  logic [31:0]   rx_frames_ok, rx_skipped, rx_err_lost;
  logic [159:0]  rx_err_count;
  logic          unused_stats;
  assign unused_stats = ^{rx_frames_ok, rx_skipped, rx_err_lost, rx_err_count};

  logic [15:0] credit16;
  assign credit16 = 32'(credit) > 32'hFFFF ? 16'hFFFF : 16'(credit);
  assign credit_o = 32'(credit);

  // ---- core ---------------------------------------------------------------------------
  logic        core_valid, core_ready, reset_done, core_busy, frame_idle;
  logic [31:0] core_data;
  logic [1:0]  state;
  logic        ev_mac, ev_wstall, ev_istall, ev_ostall, ev_instr;
  logic        fault_valid;
  logic [31:0] fault_pc, fault_code, fault_instr;

  ftpu_core #(
    .N(N), .AddCuts(AddCuts), .UbVectors(UbVectors), .WmRows(WmRows),
    .AccVectors(AccVectors), .BiasVectors(BiasVectors), .InFlight(InFlight),
    .VectorUnit(VectorUnit), .InOrder(InOrder), .ActLanes(ActLanes), .ColSkew(ColSkew),
    .PipeRegs(PipeRegs), .LinkBytes(LinkBytes), .MaxPayload(MaxPayload)
  ) u_core (
    .clk_i,
    .rst_ni,
    .soft_reset_i     (soft_reset),
    .reset_done_o     (reset_done),
    .in_valid_i       (prog_valid),
    .in_ready_o       (prog_ready),
    .in_data_i        (prog_data),
    .out_valid_o      (core_valid),
    .out_ready_i      (core_ready),
    .out_data_o       (core_data),
    .state_o          (state),
    .busy_o           (core_busy),
    .frame_idle_o     (frame_idle),
    .ev_mac_o         (ev_mac),
    .ev_weight_stall_o(ev_wstall),
    .ev_input_stall_o (ev_istall),
    .ev_output_stall_o(ev_ostall),
    .ev_instr_o       (ev_instr),
    .fault_valid_o    (fault_valid),
    .fault_pc_o       (fault_pc),
    .fault_code_o     (fault_code),
    .fault_instr_o    (fault_instr)
  );

  // ---- control plane ----------------------------------------------------------------
  logic        rsp_valid, rsp_ready;
  logic [31:0] rsp_data;
  logic [2:0]  bytes_in, bytes_out;  // moved by the link this cycle
  logic        ctl_idle;  // no CONTROL request is being taken or answered
  // ftpu_control's CONTROL side and its register interface
  logic        hw_req_valid, hw_req_ready, hw_rsp_valid, hw_rsp_ready;
  logic [31:0] hw_rsp_data;
  logic        cr_req, cr_we;
  logic [7:0]  cr_addr;
  logic [31:0] cr_wdata, cr_rdata;
  assign bytes_in  = !(in_valid_i && in_ready_o) ? 3'd0 :
                     LinkBytes == 1 ? 3'd1 : 3'(in_count_i);
  assign bytes_out = out_valid_o && out_ready_i ? 3'(LinkBytes) : 3'd0;

  // The counters' events, a cycle late with PipeRegs (all of them alike, so
  // busy + idle still equals cycles): the control plane sits far from the
  // units on a large part, and a stall that the matrix unit decides late in
  // its cycle does not also cross the die and a 32-bit adder in it.
  logic       cnt_busy, cnt_mac, cnt_wstall, cnt_istall, cnt_ostall, cnt_instr;
  logic [2:0] cnt_bytes_in, cnt_bytes_out;
  if (PipeRegs != 0) begin : g_events_q
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        {cnt_busy, cnt_mac, cnt_wstall, cnt_istall, cnt_ostall, cnt_instr} <= '0;
        {cnt_bytes_in, cnt_bytes_out} <= '0;
      end else begin
        {cnt_busy, cnt_mac, cnt_wstall, cnt_istall, cnt_ostall, cnt_instr} <=
            {core_busy, ev_mac, ev_wstall, ev_istall, ev_ostall, ev_instr};
        {cnt_bytes_in, cnt_bytes_out} <= {bytes_in, bytes_out};
      end
    end
  end else begin : g_events
    assign {cnt_busy, cnt_mac, cnt_wstall, cnt_istall, cnt_ostall, cnt_instr} =
        {core_busy, ev_mac, ev_wstall, ev_istall, ev_ostall, ev_instr};
    assign {cnt_bytes_in, cnt_bytes_out} = {bytes_in, bytes_out};
  end

  ftpu_control #(
    .Rows(N), .Cols(N), .UbVectors(UbVectors), .WeightTiles(WmRows / N),
    .AccVectors(AccVectors), .BiasVectors(BiasVectors), .IqWords(IqWords),
    .ClockHz(ClockHz), .RowDelay(RowDelay), .MaxPayload(MaxPayload),
    .VectorUnit(VectorUnit), .InOrder(InOrder), .LinkBytes(LinkBytes)
  ) u_control (
    .clk_i,
    .rst_ni,
    .req_valid_i      (hw_req_valid),
    .req_ready_o      (hw_req_ready),
    .req_data_i       (ctl_data),
    .rsp_valid_o      (hw_rsp_valid),
    .rsp_ready_i      (hw_rsp_ready),
    .rsp_data_o       (hw_rsp_data),
    .credit_i         (credit16),
    .state_i          (prog_valid && state == 2'd0 ? 2'd1 : state),
    .free_words_i     (32'(credit)),
    .queued_words_i   (32'(IqWords) - 32'(credit)),
    .ev_busy_i        (cnt_busy),
    .ev_mac_i         (cnt_mac),
    .ev_weight_stall_i(cnt_wstall),
    .ev_input_stall_i (cnt_istall),
    .ev_output_stall_i(cnt_ostall),
    .ev_idle_i        (!cnt_busy),
    .ev_bytes_in_i    (cnt_bytes_in),
    .ev_bytes_out_i   (cnt_bytes_out),
    .ev_instr_i       (cnt_instr),
    .fault_valid_i    (fault_valid),
    .fault_pc_i       (fault_pc),
    .fault_code_i     (fault_code),
    .fault_instr_i    (fault_instr),
    .reset_o          (soft_reset),
    .reset_done_i     (reset_done),
    .reg_req_i        (cr_req),
    .reg_we_i         (cr_we),
    .reg_addr_i       (cr_addr),
    .reg_wdata_i      (cr_wdata),
    .reg_rdata_o      (cr_rdata)
  );

  // Where a word stream stands in its frame (ControlCore's request and
  // RESPONSE tracking below).
  typedef enum logic [1:0] {
    PhW1,   // next word is a frame's w1
    PhW2,   // next word is w2 (len)
    PhPay   // next word is payload
  } frame_ph_e;

  if (ControlCore != 0) begin : g_cpu
    // The control core answers CONTROL frames through ftpu_control's
    // registers; ftpu_control's FSM gets no requests.
    logic        cpu_req, cpu_we, cpu_gnt, cpu_rd_q, ext_rd_q;
    logic [7:0]  cpu_addr;
    logic [31:0] cpu_wdata;
    logic        cpu_ext_req, cpu_ext_we, cpu_rst, cpu_retire, cpu_trap;
    logic [15:0] cpu_ext_addr;
    logic [3:0]  cpu_ext_be;
    logic [31:0] cpu_ext_wdata;

    ftpu_cpu #(
      .RomWords(RomWords), .RamWords(RamWords), .RomInit(RomInit), .LoadPort(1'b0)
    ) u_cpu (
      .clk_i,
      .rst_ni,
      .reg_req_o  (cpu_req),
      .reg_we_o   (cpu_we),
      .reg_addr_o (cpu_addr),
      .reg_wdata_o(cpu_wdata),
      .reg_rdata_i(cpu_rd_q ? cr_rdata : 32'd0),
      .reg_gnt_i  (cpu_gnt),
      .ctl_valid_i(ctl_valid),
      .ctl_ready_o(ctl_ready),
      .ctl_data_i (ctl_data),
      .rsp_valid_o(rsp_valid),
      .rsp_ready_i(rsp_ready),
      .rsp_data_o (rsp_data),
      .credit_i   (credit16),
      .ext_req_o  (cpu_ext_req),
      .ext_we_o   (cpu_ext_we),
      .ext_addr_o (cpu_ext_addr),
      .ext_be_o   (cpu_ext_be),
      .ext_wdata_o(cpu_ext_wdata),
      .ext_ready_i(1'b1),  // no EXT devices: every access is a fault
      .ext_err_i  (1'b1),
      .ext_rdata_i(32'd0),
      .ld_we_i    (1'b0),
      .ld_addr_i  (30'd0),
      .ld_data_i  (32'd0),
      .core_rst_o (cpu_rst),
      .retire_o   (cpu_retire),
      .trap_o     (cpu_trap)
    );

    // The register port: the external one (reg_*_i) first, the core waits.
    // Read data goes to whoever read in the cycle before (0 to the other).
    assign cpu_gnt  = !reg_req_i;
    assign cr_req   = reg_req_i || cpu_req;
    assign cr_we    = reg_req_i ? reg_we_i : cpu_we;
    assign cr_addr  = reg_req_i ? reg_addr_i : cpu_addr;
    assign cr_wdata = reg_req_i ? reg_wdata_i : cpu_wdata;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        cpu_rd_q <= 1'b0;
        ext_rd_q <= 1'b0;
      end else begin
        cpu_rd_q <= cpu_req && !cpu_we;
        ext_rd_q <= reg_req_i && !reg_we_i;
      end
    end
    assign reg_rdata_o = ext_rd_q ? cr_rdata : 32'd0;

    assign hw_req_valid = 1'b0;
    assign hw_rsp_ready = 1'b0;

    // Requests taken minus RESPONSE frames finished, from the two word
    // streams (w1, w2 = {credit, len}, len payload words), for idle_o: the
    // firmware works on a request for a while with neither stream moving.
    // A core reset (REBOOT, watchdog) drops what it was answering.
    frame_ph_e   q_ph_q, q_ph_d, r_ph_q, r_ph_d;
    logic [15:0] q_left_q, q_left_d, r_left_q, r_left_d;
    logic [1:0]  pend_q, pend_d;
    logic        q_start, r_end;
    always_comb begin
      q_ph_d   = q_ph_q;
      q_left_d = q_left_q;
      r_ph_d   = r_ph_q;
      r_left_d = r_left_q;
      q_start  = 1'b0;
      r_end    = 1'b0;
      if (ctl_valid && ctl_ready) begin
        unique case (q_ph_q)
          // a request's w1: one more request taken
          PhW1: begin
            q_start = 1'b1;
            q_ph_d  = PhW2;
          end
          // w2: its payload length
          PhW2: begin
            q_left_d = ctl_data[15:0];
            q_ph_d   = ctl_data[15:0] == 16'd0 ? PhW1 : PhPay;
          end
          // payload words
          PhPay: begin
            q_left_d = q_left_q - 16'd1;
            if (q_left_q == 16'd1) q_ph_d = PhW1;
          end
          default: q_ph_d = PhW1;
        endcase
      end
      if (rsp_valid && rsp_ready) begin
        unique case (r_ph_q)
          // a RESPONSE's w1
          PhW1: r_ph_d = PhW2;
          // w2: its length; an empty one ends here
          PhW2: begin
            r_left_d = rsp_data[15:0];
            r_ph_d   = rsp_data[15:0] == 16'd0 ? PhW1 : PhPay;
            r_end    = rsp_data[15:0] == 16'd0;
          end
          // payload words; the last one ends the RESPONSE
          PhPay: begin
            r_left_d = r_left_q - 16'd1;
            if (r_left_q == 16'd1) begin
              r_ph_d = PhW1;
              r_end  = 1'b1;
            end
          end
          default: r_ph_d = PhW1;
        endcase
      end
      pend_d = pend_q + 2'(q_start) - 2'(r_end && pend_q != 2'd0);
      // a soft reset empties the mailbox: the next word is a w1
      if (soft_reset) q_ph_d = PhW1;
      if (cpu_rst) begin
        pend_d = 2'(q_start);
        r_ph_d = PhW1;
      end
    end
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        q_ph_q   <= PhW1;
        q_left_q <= 16'd0;
        r_ph_q   <= PhW1;
        r_left_q <= 16'd0;
        pend_q   <= 2'd0;
      end else begin
        q_ph_q   <= q_ph_d;
        q_left_q <= q_left_d;
        r_ph_q   <= r_ph_d;
        r_left_q <= r_left_d;
        pend_q   <= pend_d;
      end
    end
    assign ctl_idle = !ctl_valid && pend_q == 2'd0 && !rsp_valid;

    logic unused_cpu;
    assign unused_cpu = ^{hw_req_ready, hw_rsp_valid, hw_rsp_data, cpu_ext_req, cpu_ext_we,
                          cpu_ext_addr, cpu_ext_be, cpu_ext_wdata, cpu_retire, cpu_trap};
  end else begin : g_hw
    // ftpu_control's FSM answers CONTROL frames; the register port is its own.
    assign hw_req_valid = ctl_valid;
    assign ctl_ready    = hw_req_ready;
    assign rsp_valid    = hw_rsp_valid;
    assign rsp_data     = hw_rsp_data;
    assign hw_rsp_ready = rsp_ready;
    assign cr_req       = reg_req_i;
    assign cr_we        = reg_we_i;
    assign cr_addr      = reg_addr_i;
    assign cr_wdata     = reg_wdata_i;
    assign reg_rdata_o  = cr_rdata;
    assign ctl_idle     = !ctl_valid && ctl_ready && !rsp_valid;
  end

  // ---- ERROR frames, the mux, the transmitter ----------------------------------------
  logic        errf_valid, errf_ready, errf_busy;
  logic [31:0] errf_data;

  ftpu_link_errors u_errors (
    .clk_i,
    .rst_ni,
    .err_valid_i(err_valid),
    .err_ready_o(err_ready),
    .err_code_i (err_code),
    .err_seq_i  (err_seq),
    .err_type_i (err_type),
    .out_valid_o(errf_valid),
    .out_ready_i(errf_ready),
    .out_data_o (errf_data),
    .busy_o     (errf_busy)
  );

  logic        tx_valid, tx_ready, tx_idle, mux_busy;
  logic [31:0] tx_data;
  logic [2:0]  mux_ready;

  ftpu_link_mux u_mux (
    .clk_i,
    .rst_ni,
    .credit_i   (credit16),
    .ack_seq_i  (ack_seq),
    .in_valid_i ({core_valid, errf_valid, rsp_valid}),
    .in_ready_o (mux_ready),
    .in_data_i  ({core_data, errf_data, rsp_data}),
    .out_valid_o(tx_valid),
    .out_ready_i(tx_ready),
    .out_data_o (tx_data),
    .busy_o     (mux_busy)
  );
  assign rsp_ready  = mux_ready[0];
  assign errf_ready = mux_ready[1];
  assign core_ready = mux_ready[2];

  ftpu_link_tx #(.Bytes(LinkBytes)) u_tx (
    .clk_i,
    .rst_ni,
    .in_valid_i (tx_valid),
    .in_ready_o (tx_ready),
    .in_data_i  (tx_data),
    .out_valid_o,
    .out_ready_i,
    .out_data_o,
    .idle_o     (tx_idle)
  );

  assign idle_o = !prog_valid && 32'(credit) == 32'(IqWords) && frame_idle && ctl_idle &&
                  !err_valid && !errf_busy && !mux_busy && !tx_valid && tx_idle;
endmodule
