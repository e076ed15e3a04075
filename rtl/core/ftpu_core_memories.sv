// SPDX-License-Identifier: Apache-2.0
`include "ftpu_assert.svh"
// ftpu_core_memories: the four memories of docs/isa.md (UB, WM, ACC, BIAS)
// and who gets their ports.
//
// One write and one read port each, one cycle read latency, read-first.
// Shared ports have fixed priorities: the matrix unit (which has no
// back-pressure) first, then the activation unit, then the output unit and
// the decoder's HOST_READ vector, which wait. Fairness: the matrix unit
// skips a cycle (hold) for a unit that waited in the previous one, so
// ACTIVATE and HOST_WRITE progress while long MATMULs run (at most every
// other cycle; HOST_WRITE needs one read per N/2 or N link words).
// The vector unit's COPY and CONVERT into UB run while every other unit is
// idle (ftpu_core_hazards), so their UB and WM ports simply join the muxes;
// its vector ops and CONVERT's reads use ACC ports of their own (three
// wide reads, one wide write), and WM's write port is the unit's or the
// decoder's, so vector ops and CONVERT into WM run beside MATMULs on other
// rows. The assertions below check that.
module ftpu_core_memories #(
  parameter int  N           = ftpu_pkg::DEFAULT_N,
  parameter int  UbVectors   = ftpu_pkg::DEFAULT_UbVectors,
  parameter int  WmRows      = ftpu_pkg::DEFAULT_WmRows,
  parameter int  AccVectors  = ftpu_pkg::DEFAULT_AccVectors,
  parameter int  BiasVectors = ftpu_pkg::DEFAULT_BiasVectors,
  parameter int unsigned VectorUnit = ftpu_pkg::DEFAULT_VectorUnit,
  localparam int UbAw   = $clog2(UbVectors),
  localparam int WmAw   = $clog2(WmRows),
  localparam int AccAw  = $clog2(AccVectors),
  localparam int BiasAw = (BiasVectors > 1) ? $clog2(BiasVectors) : 1,
  localparam int OuAw   = (UbAw > AccAw) ? UbAw : AccAw,
  localparam int V      = ftpu_pkg::VECTOR_WIDTH  // the vector unit's ports, in vectors
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  // matrix unit: first on every port it uses
  input  logic             mu_wm_rd_i,
  input  logic [WmAw-1:0]  mu_wm_addr_i,
  input  logic             mu_ub_rd_i,
  input  logic [UbAw-1:0]  mu_ub_addr_i,
  input  logic             mu_acc_rd_i,
  input  logic [AccAw-1:0] mu_acc_rd_addr_i,
  input  logic             mu_acc_wr_i,
  input  logic [AccAw-1:0] mu_acc_wr_addr_i,
  input  logic [N*32-1:0]  mu_acc_wr_data_i,
  output logic             mu_hold_o,
  // activation unit
  input  logic              act_bias_rd_i,
  input  logic [BiasAw-1:0] act_bias_addr_i,
  input  logic              act_acc_req_i,
  output logic              act_acc_gnt_o,
  input  logic [AccAw-1:0]  act_acc_addr_i,
  input  logic              act_ub_wr_i,
  input  logic [UbAw-1:0]   act_ub_addr_i,
  input  logic [N*16-1:0]   act_ub_data_i,
  // output unit
  input  logic             ou_req_i,
  input  logic             ou_acc_i,      // reads ACC (else UB)
  output logic             ou_gnt_o,
  input  logic [OuAw-1:0]  ou_addr_i,
  // the vector unit
  input  logic             vu_acc_rdx_i,       // its streamed operands, V rows
  input  logic [AccAw-1:0] vu_acc_rdx_addr_i,  // from the address each (ports
  input  logic             vu_acc_rd2_i,       // of their own, built with the
  input  logic [AccAw-1:0] vu_acc_rd2_addr_i,  // vector unit)
  input  logic             vu_acc_rd3_i,
  input  logic [AccAw-1:0] vu_acc_rd3_addr_i,
  input  logic             vu_acc_wr_i,        // its results: V rows, masked
  input  logic [AccAw-1:0] vu_acc_wr_addr_i,
  input  logic [V*N*32-1:0] vu_acc_wr_data_i,
  input  logic [V-1:0]     vu_acc_wr_mask_i,
  input  logic             vu_ub_rd_i,
  input  logic [UbAw-1:0]  vu_ub_rd_addr_i,
  input  logic             vu_ub_wr_i,
  input  logic [UbAw-1:0]  vu_ub_wr_addr_i,
  input  logic [N*16-1:0]  vu_ub_wr_data_i,
  input  logic             vu_wm_rd_i,
  input  logic [WmAw-1:0]  vu_wm_rd_addr_i,
  input  logic             vu_wm_wr_i,
  input  logic [WmAw-1:0]  vu_wm_wr_addr_i,
  input  logic [N*16-1:0]  vu_wm_wr_data_i,
  // the decoder's HOST_READ vector
  input  logic             vec_full_i,
  input  logic [1:0]       vec_mem_i,
  input  logic [16:0]      vec_addr_i,
  input  logic             vec_also_wm_i,  // a UB vector, to WM row vec_wm_addr_i too
  input  logic [16:0]      vec_wm_addr_i,
  input  logic [N*32-1:0]  vec_data_i,
  output logic             vec_we_o,
  // read data, the cycle after a read
  output logic [N*16-1:0]  ub_q_o,
  output logic [N*16-1:0]  wm_q_o,
  output logic [N*32-1:0]  acc_q_o,
  output logic [V*N*32-1:0] acc_qx_o,
  output logic [V*N*32-1:0] acc_q2_o,
  output logic [V*N*32-1:0] acc_q3_o,
  output logic [N*32-1:0]  bias_q_o
);
  localparam logic [1:0] MemUb = ftpu_pkg::MEM_UB, MemWm = ftpu_pkg::MEM_WM;
  localparam logic [1:0] MemAcc = ftpu_pkg::MEM_ACC, MemBias = ftpu_pkg::MEM_BIAS;

  // The vector is written when its memory's write port is free.
  always_comb begin
    unique case (vec_mem_i)
      MemUb:   vec_we_o = vec_full_i && !act_ub_wr_i && !vu_ub_wr_i &&
                          !(VectorUnit != 0 && vec_also_wm_i && vu_wm_wr_i);
      MemWm:   vec_we_o = vec_full_i && !vu_wm_wr_i;
      MemAcc:  vec_we_o = vec_full_i && !mu_acc_wr_i && !vu_acc_wr_i;  // one port each
      default: vec_we_o = vec_full_i;
    endcase
  end
  logic vec_ub, vec_wm, vec_acc, vec_bias, vec_ub_wm;
  assign vec_ub   = vec_we_o && vec_mem_i == MemUb;
  assign vec_ub_wm = VectorUnit != 0 && vec_ub && vec_also_wm_i;
  assign vec_wm   = vec_we_o && vec_mem_i == MemWm;
  assign vec_acc  = vec_we_o && vec_mem_i == MemAcc;
  assign vec_bias = vec_we_o && vec_mem_i == MemBias;

  logic [N*16-1:0] ub_mem [UbVectors];
  logic [N*16-1:0] wm_mem [WmRows];
  logic [N*32-1:0] acc_mem [AccVectors];
  logic [N*32-1:0] bias_mem [BiasVectors];

  // UB: write activation (first), vector unit or the vector; read matrix
  // (first), vector unit or output.
  logic            ub_we, ub_re;
  logic [UbAw-1:0] ub_waddr, ub_raddr;
  logic [N*16-1:0] ub_wdata;
  assign ub_we    = act_ub_wr_i || vu_ub_wr_i || vec_ub;
  assign ub_waddr = act_ub_wr_i ? act_ub_addr_i : vu_ub_wr_i ? vu_ub_wr_addr_i :
                    vec_addr_i[UbAw-1:0];
  assign ub_wdata = act_ub_wr_i ? act_ub_data_i : vu_ub_wr_i ? vu_ub_wr_data_i :
                    vec_data_i[N*16-1:0];
  assign ub_re    = mu_ub_rd_i || vu_ub_rd_i || (ou_req_i && !ou_acc_i);
  assign ub_raddr = mu_ub_rd_i ? mu_ub_addr_i : vu_ub_rd_i ? vu_ub_rd_addr_i :
                    ou_addr_i[UbAw-1:0];
  always_ff @(posedge clk_i) begin
    if (ub_re) ub_q_o <= ub_mem[ub_raddr];
    if (ub_we) ub_mem[ub_waddr] <= ub_wdata;
  end

  // WM: written by the vector unit or the vector (a WM one, or a UB one
  // with ALSO_WM), read by the matrix unit or the vector unit.
  always_ff @(posedge clk_i) begin
    if (mu_wm_rd_i || vu_wm_rd_i) wm_q_o <= wm_mem[mu_wm_rd_i ? mu_wm_addr_i : vu_wm_rd_addr_i];
    if (vu_wm_wr_i || vec_wm || vec_ub_wm)
      wm_mem[vu_wm_wr_i ? vu_wm_wr_addr_i :
             vec_ub_wm ? vec_wm_addr_i[WmAw-1:0] : vec_addr_i[WmAw-1:0]] <=
        vu_wm_wr_i ? vu_wm_wr_data_i : vec_data_i[N*16-1:0];
  end

  // ACC: write matrix (first) or the vector (the vector unit's wide
  // writes below); read matrix, vector unit, activation, output.
  logic             acc_we, acc_re;
  logic [AccAw-1:0] acc_waddr, acc_raddr;
  logic [N*32-1:0]  acc_wdata;
  assign act_acc_gnt_o = act_acc_req_i && !mu_acc_rd_i;
  assign acc_we    = mu_acc_wr_i || vec_acc;
  assign acc_waddr = mu_acc_wr_i ? mu_acc_wr_addr_i : vec_addr_i[AccAw-1:0];
  assign acc_wdata = mu_acc_wr_i ? mu_acc_wr_data_i : vec_data_i;
  assign acc_re    = mu_acc_rd_i || act_acc_req_i || (ou_req_i && ou_acc_i);
  assign acc_raddr = mu_acc_rd_i ? mu_acc_rd_addr_i :
                     act_acc_req_i ? act_acc_addr_i : ou_addr_i[AccAw-1:0];
  always_ff @(posedge clk_i) begin
    if (acc_re) acc_q_o <= acc_mem[acc_raddr];
    if (acc_we) acc_mem[acc_waddr] <= acc_wdata;
    if (VectorUnit != 0 && vu_acc_wr_i)
      for (int k = 0; k < V; k++)
        if (vu_acc_wr_mask_i[k])
          acc_mem[AccAw'(32'(vu_acc_wr_addr_i) + k)] <= vu_acc_wr_data_i[k*N*32 +: N*32];
  end
  assign ou_gnt_o = ou_req_i && (ou_acc_i ? (!mu_acc_rd_i && !act_acc_req_i) : !mu_ub_rd_i);

  // The vector unit's operand ports: V vectors a cycle each, whatever the
  // op (TPU v2's vector memory is wide for the same reason). In the
  // simulated device they are read ports of the one array (rows past its
  // end read as zeros, masked off later); an FPGA build of the unit would
  // bank ACC V ways and replicate the banks (the boards leave it out).
  if (VectorUnit != 0) begin : g_vu_ports
    function automatic logic [V*N*32-1:0] rows(input logic [AccAw-1:0] at);
      for (int k = 0; k < V; k++)
        rows[k*N*32 +: N*32] = 32'(at) + k < AccVectors ? acc_mem[AccAw'(32'(at) + k)] : '0;
    endfunction
    always_ff @(posedge clk_i) begin
      if (vu_acc_rdx_i) acc_qx_o <= rows(vu_acc_rdx_addr_i);
      if (vu_acc_rd2_i) acc_q2_o <= rows(vu_acc_rd2_addr_i);
      if (vu_acc_rd3_i) acc_q3_o <= rows(vu_acc_rd3_addr_i);
    end
  end else begin : g_no_vu_ports
    assign acc_qx_o = '0;
    assign acc_q2_o = '0;
    assign acc_q3_o = '0;
    logic unused_vu_ports;
    assign unused_vu_ports = ^{vu_acc_rdx_i, vu_acc_rdx_addr_i, vu_acc_rd2_i, vu_acc_rd2_addr_i,
                               vu_acc_rd3_i, vu_acc_rd3_addr_i, vu_acc_wr_data_i,
                               vu_acc_wr_mask_i, vu_acc_wr_addr_i};
  end

  // BIAS: written by the vector, read by the activation unit.
  always_ff @(posedge clk_i) begin
    if (act_bias_rd_i) bias_q_o <= bias_mem[act_bias_addr_i];
    if (vec_bias) bias_mem[vec_addr_i[BiasAw-1:0]] <= vec_data_i;
  end

  // Fairness: who waited in the previous cycle.
  logic act_waited_q, ou_waited_q;
  assign mu_hold_o = (act_acc_req_i && act_waited_q) || (ou_req_i && ou_waited_q);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      act_waited_q <= 1'b0;
      ou_waited_q  <= 1'b0;
    end else begin
      act_waited_q <= act_acc_req_i && !act_acc_gnt_o;
      ou_waited_q  <= ou_req_i && !ou_gnt_o;
    end
  end

  // Address bits beyond the smaller memories.
  logic unused;
  assign unused = ^{vec_addr_i, vec_wm_addr_i};

  // The shared ports grant one user per cycle.
  `FTPU_ASSERT_ONEHOT0(a_ub_rd_grant, clk_i, rst_ni,
                       {mu_ub_rd_i, vu_ub_rd_i, ou_gnt_o && !ou_acc_i})
  `FTPU_ASSERT_ONEHOT0(a_acc_rd_grant, clk_i, rst_ni,
                       {mu_acc_rd_i, act_acc_gnt_o, ou_gnt_o && ou_acc_i})
  `FTPU_ASSERT_ONEHOT0(a_wm_rd_grant, clk_i, rst_ni, {mu_wm_rd_i, vu_wm_rd_i})
  `FTPU_ASSERT_ONEHOT0(a_ub_wr_grant, clk_i, rst_ni, {act_ub_wr_i, vu_ub_wr_i, vec_ub})
  `FTPU_ASSERT_ONEHOT0(a_wm_wr_grant, clk_i, rst_ni, {vu_wm_wr_i, vec_wm || vec_ub_wm})
  `FTPU_ASSERT_ONEHOT0(a_acc_wr_grant, clk_i, rst_ni, {mu_acc_wr_i, vec_acc})
  `FTPU_ASSERT(a_acc_wr_vu, clk_i, rst_ni, !(vu_acc_wr_i && vec_acc))
  // The matrix unit and a vector op write ACC in one cycle only on other rows.
`ifndef SYNTHESIS
  logic mu_on_vu_row;
  always_comb begin
    mu_on_vu_row = 1'b0;
    for (int k = 0; k < V; k++)
      if (vu_acc_wr_i && vu_acc_wr_mask_i[k] &&
          32'(mu_acc_wr_addr_i) == 32'(vu_acc_wr_addr_i) + k)
        mu_on_vu_row = 1'b1;
  end
  `FTPU_ASSERT(a_acc_wr_apart, clk_i, rst_ni, !(mu_acc_wr_i && mu_on_vu_row))
`endif
endmodule
