// SPDX-License-Identifier: Apache-2.0
// ftpu_activate_unit: executes ACTIVATE (docs/isa.md) a vector per cycle:
//
//   UB[u+i] = bf16(relu?(ACC[a+i] + (bias ? BIAS[b] : -0)))   for i < n
//
// with Lanes lanes of ftpu_activate (docs/activation.md): N by default, a
// vector per cycle; fewer (a divisor of N, the small profile's one) pass a
// vector through them in N / Lanes chunks on consecutive cycles, so a vector
// takes N / Lanes cycles and the unit N / Lanes times fewer adders. The
// instruction is decoded and range-checked upstream; start_i is taken only
// while idle.
//
// Timing: with BIAS the bias vector is read first (one cycle, its data the
// next); then one ACC read is requested per cycle. The ACC read port is
// shared (ftpu_core arbitrates it; the matrix unit has priority), so a
// request waits for acc_rd_gnt_i; data arrive the cycle after the grant and
// the lanes' result Latency = popcount(AddCuts) cycles after that (after
// the last chunk's, with fewer lanes), when it is written to UB; a cycle
// more when the ACC data are registered before the lanes: with InReg, and
// always with fewer lanes (their chunks come from a copy of the vector). With
// fewer lanes a read is requested at most every N / Lanes cycles. The UB
// write port gives this unit priority, so writes never wait. busy_o stays
// high until the last UB write; the unit's ranges (acc_lo_o.., ub_lo_o..)
// stay valid while busy, for the core's hazard checks.
module ftpu_activate_unit #(
  parameter int          N        = 16,
  parameter int unsigned AddCuts  = 0,
  parameter int          AccAddrW = 12,
  parameter int          UbAddrW  = 12,
  parameter int          BiasAddrW = 8,
  parameter int          Lanes    = N,   // a divisor of N
  // 1: the ACC data are registered before they enter the lanes (ftpu_core's
  // PipeRegs): block RAM's clock-to-output then does not meet the adder's
  // first step in one cycle (the ULX3S 45F's longest path without it).
  // Fewer lanes than N always take the data from a register (g_serial).
  parameter int unsigned InReg    = 0,
  localparam int Chunks = N / Lanes,
  localparam int ChW    = Chunks > 1 ? $clog2(Chunks) : 1
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // the instruction
  input  logic                 start_i,
  input  logic                 relu_i,
  input  logic                 bias_en_i,
  input  logic [AccAddrW-1:0]  acc_addr_i,
  input  logic [UbAddrW-1:0]   ub_addr_i,
  input  logic [BiasAddrW-1:0] bias_addr_i,
  input  logic [15:0]          n_i,
  output logic                 busy_o,
  // ranges in use while busy: [lo, hi)
  output logic [17:0]          acc_lo_o,
  output logic [17:0]          acc_hi_o,
  output logic [17:0]          ub_lo_o,
  output logic [17:0]          ub_hi_o,
  // bias memory read (data the next cycle)
  output logic                 bias_rd_o,
  output logic [BiasAddrW-1:0] bias_addr_o,
  input  logic [N*32-1:0]      bias_data_i,
  // accumulator read, shared (data the cycle after a grant)
  output logic                 acc_rd_req_o,
  input  logic                 acc_rd_gnt_i,
  output logic [AccAddrW-1:0]  acc_rd_addr_o,
  input  logic [N*32-1:0]      acc_data_i,
  // unified buffer write
  output logic                 ub_wr_o,
  output logic [UbAddrW-1:0]   ub_wr_addr_o,
  output logic [N*16-1:0]      ub_wr_data_o
);
  localparam int Latency = ftpu_pkg::add_latency(AddCuts);
  localparam logic [31:0] NegZero = 32'h8000_0000;  // "no bias": x + -0 = x

  typedef enum logic [1:0] {
    StIdle,
    StBiasRd,   // bias read issued
    StBiasCap,  // bias data arrive
    StRun       // ACC reads, results flowing to UB
  } state_e;
  state_e state_q;

  logic                 relu_q;
  logic [AccAddrW-1:0]  rd_addr_q;
  logic [UbAddrW-1:0]   wr_addr_q;
  logic [15:0]          rd_left_q, wr_left_q;
  logic [N*32-1:0]      bias_q;
  logic [BiasAddrW-1:0] bias_addr_q;
  logic [17:0]          acc_lo_q, acc_hi_q, ub_lo_q, ub_hi_q;
  // A chunk of Lanes values enters the lanes in a cycle: with N lanes the
  // one chunk as the ACC data arrive (or a cycle later, InReg), with fewer
  // all of them from acc_buf on the cycles after. v_q[k] and c_q[k]: a
  // chunk entered the lanes k cycles ago, and which one.
  logic                 arrive_q;   // ACC data arrive this cycle
  logic                 arrive;     // ... and are there for the lanes (acc_in)
  logic [N*32-1:0]      acc_in;
  logic                 in_v;
  logic [ChW-1:0]       in_c;
  logic [Latency:0]     v_q;
  logic [ChW-1:0]       c_q [Latency+1];
  logic                 last_out;   // the last chunk of a vector leaves the lanes
  logic                 rd_fire;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) arrive_q <= 1'b0;
    else         arrive_q <= rd_fire;
  end
  if (InReg != 0 && Chunks == 1) begin : g_in_reg
    logic            arrive_in_q;
    logic [N*32-1:0] acc_in_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) arrive_in_q <= 1'b0;
      else         arrive_in_q <= arrive_q;
    end
    always_ff @(posedge clk_i) if (arrive_q) acc_in_q <= acc_data_i;
    assign arrive = arrive_in_q;
    assign acc_in = acc_in_q;
  end else begin : g_in_wire
    assign arrive = arrive_q;
    assign acc_in = acc_data_i;
  end
  assign v_q[0] = in_v;
  assign c_q[0] = in_c;
  for (genvar k = 1; k <= Latency; k++) begin : g_v_chain
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) v_q[k] <= 1'b0;
      else         v_q[k] <= v_q[k-1];
    end
    always_ff @(posedge clk_i) c_q[k] <= c_q[k-1];
  end
  assign last_out = v_q[Latency] && c_q[Latency] == ChW'(Chunks - 1);

  logic [N*32-1:0]     acc_src;    // the vector whose chunk enters the lanes
  logic [Lanes*16-1:0] y;          // the lanes' results (chunk c_q[Latency])
  logic [N*16-1:0]     ub_data;    // the whole vector, as written to UB
  logic                read_ok;    // a read's data would not meet a chunk still to feed
  if (Chunks == 1) begin : g_wide
    assign in_v    = arrive;
    assign in_c    = '0;
    assign acc_src = acc_in;
    assign ub_data = y;
    assign read_ok = 1'b1;
  end else begin : g_serial
    logic [N*32-1:0]     acc_buf_q;  // the arrived vector, for its chunks
    logic [ChW-1:0]      next_c_q;   // the chunk entering the lanes
    logic                feeding_q;  // a chunk enters the lanes
    logic [ChW-1:0]      gap_q;      // cycles until a read may be granted
    logic [(N-Lanes)*16-1:0] y_buf_q;  // results of the vector's earlier chunks
    // Chunk 0 too comes from the copy, a cycle after the data arrive: block
    // RAM's clock-to-output then never meets an adder in one cycle (the
    // ULX3S 25F's longest path when chunk 0 came straight from it), for no
    // flip-flop and no throughput (a read every Chunks cycles at most); a
    // new vector arrives as the last chunk of the one before enters.
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        feeding_q <= 1'b0;
        next_c_q  <= '0;
        gap_q     <= '0;
      end else begin
        if (arrive) begin
          feeding_q <= 1'b1;
          next_c_q  <= '0;
        end else if (feeding_q) begin
          next_c_q <= next_c_q + 1'b1;
          if (next_c_q == ChW'(Chunks - 1)) feeding_q <= 1'b0;
        end
        gap_q <= rd_fire ? ChW'(Chunks - 1) : (gap_q != '0 ? gap_q - 1'b1 : gap_q);
      end
    end
    always_ff @(posedge clk_i) begin
      if (arrive) acc_buf_q <= acc_in;
      if (v_q[Latency] && !last_out) y_buf_q[Lanes*16*c_q[Latency] +: Lanes*16] <= y;
    end
    assign in_v    = feeding_q;
    assign in_c    = next_c_q;
    assign acc_src = acc_buf_q;
    // the last chunk's results straight from the lanes, the others held
    assign ub_data = {y, y_buf_q};
    assign read_ok = gap_q == '0;
  end
  assign acc_rd_req_o = state_q == StRun && rd_left_q != 16'd0 && read_ok;
  assign rd_fire      = acc_rd_req_o && acc_rd_gnt_i;

  for (genvar l = 0; l < Lanes; l++) begin : g_lane
    ftpu_activate #(.AddCuts(AddCuts)) u_lane (
      .clk_i,
      .acc_i (acc_src[32*(Lanes*in_c + l) +: 32]),
      .bias_i(bias_q[32*(Lanes*in_c + l) +: 32]),
      .relu_i(relu_q),
      .y_o   (y[16*l +: 16])
    );
  end

  // Next state and registers.
  state_e                state_d;
  logic                  relu_d;
  logic [AccAddrW-1:0]   rd_addr_d;
  logic [UbAddrW-1:0]    wr_addr_d;
  logic [15:0]           rd_left_d;
  logic [15:0]           wr_left_d;
  logic [N*32-1:0]       bias_d;
  logic [BiasAddrW-1:0]  bias_addr_d;
  logic [17:0]           acc_lo_d;
  logic [17:0]           acc_hi_d;
  logic [17:0]           ub_lo_d;
  logic [17:0]           ub_hi_d;
  always_comb begin
    state_d = state_q;
    relu_d = relu_q;
    rd_addr_d = rd_addr_q;
    wr_addr_d = wr_addr_q;
    rd_left_d = rd_left_q;
    wr_left_d = wr_left_q;
    bias_d = bias_q;
    bias_addr_d = bias_addr_q;
    acc_lo_d = acc_lo_q;
    acc_hi_d = acc_hi_q;
    ub_lo_d = ub_lo_q;
    ub_hi_d = ub_hi_q;
    unique case (state_q)
      StIdle: begin
        if (start_i) begin
          relu_d      = relu_i;
          rd_addr_d   = acc_addr_i;
          wr_addr_d   = ub_addr_i;
          rd_left_d   = n_i;
          wr_left_d   = n_i;
          acc_lo_d    = 18'(acc_addr_i);
          acc_hi_d    = 18'(acc_addr_i) + 18'(n_i);
          ub_lo_d     = 18'(ub_addr_i);
          ub_hi_d     = 18'(ub_addr_i) + 18'(n_i);
          bias_d      = {N{NegZero}};
          bias_addr_d = bias_addr_i;
          state_d     = bias_en_i ? StBiasRd : StRun;
        end
      end
      StBiasRd:  state_d = StBiasCap;
      StBiasCap: begin
        bias_d  = bias_data_i;
        state_d = StRun;
      end
      StRun: begin
        if (rd_fire) begin
          rd_addr_d = rd_addr_q + 1'b1;
          rd_left_d = rd_left_q - 16'd1;
        end
        if (last_out) begin
          wr_addr_d = wr_addr_q + 1'b1;
          wr_left_d = wr_left_q - 16'd1;
          if (wr_left_q == 16'd1) state_d = StIdle;
        end
      end
      default: state_d = StIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      relu_q <= 1'b0;
      rd_addr_q <= '0;
      wr_addr_q <= '0;
      rd_left_q <= '0;
      wr_left_q <= '0;
      bias_q <= '0;
      bias_addr_q <= '0;
      acc_lo_q <= '0;
      acc_hi_q <= '0;
      ub_lo_q <= '0;
      ub_hi_q <= '0;
    end else begin
      state_q <= state_d;
      relu_q <= relu_d;
      rd_addr_q <= rd_addr_d;
      wr_addr_q <= wr_addr_d;
      rd_left_q <= rd_left_d;
      wr_left_q <= wr_left_d;
      bias_q <= bias_d;
      bias_addr_q <= bias_addr_d;
      acc_lo_q <= acc_lo_d;
      acc_hi_q <= acc_hi_d;
      ub_lo_q <= ub_lo_d;
      ub_hi_q <= ub_hi_d;
    end
  end

  assign busy_o        = state_q != StIdle;
  assign acc_lo_o      = acc_lo_q;
  assign acc_hi_o      = acc_hi_q;
  assign ub_lo_o       = ub_lo_q;
  assign ub_hi_o       = ub_hi_q;
  assign bias_rd_o     = state_q == StBiasRd;
  assign bias_addr_o   = bias_addr_q;
  assign acc_rd_addr_o = rd_addr_q;
  assign ub_wr_o       = last_out;
  assign ub_wr_addr_o  = wr_addr_q;
  assign ub_wr_data_o  = ub_data;
endmodule
