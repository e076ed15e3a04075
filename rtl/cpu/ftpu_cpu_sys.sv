// SPDX-License-Identifier: Apache-2.0
// ftpu_cpu_sys: the control core's system registers (MMIO 0x4000_0500,
// docs/firmware.md): reboot, reset cause and a watchdog.
//
//   +0x0 SYS_CTRL   W  bit 0 REBOOT: reset the core into the boot ROM (its
//                      memories and the mailbox keep their contents); reads 0
//   +0x4 SYS_CAUSE  R  why the core last left reset: 0 power-on (rst_ni),
//                      1 REBOOT, 2 watchdog
//   +0x8 SYS_WDOG   RW write N > 0: the core is reset (cause 2) unless
//                      SYS_WDOG is written again within N cycles; write 0:
//                      off. Reads the cycles left (0 when off)
//
// Register port: req_i is high for one cycle per access (ftpu_cpu); read
// data is valid on rdata_o in the next cycle. core_rst_o is high for one
// cycle, the cycle after the REBOOT write or the watchdog's expiry; the
// core is held in reset during it (ftpu_cpu). This block is reset by rst_ni
// only.
module ftpu_cpu_sys (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        req_i,
  input  logic        we_i,
  input  logic [3:2]  addr_i,
  input  logic [31:0] wdata_i,
  output logic [31:0] rdata_o,
  output logic        core_rst_o
);
  localparam logic [1:0] CausePowerOn = 2'd0, CauseReboot = 2'd1, CauseWatchdog = 2'd2;

  logic [31:0] wdog_q, wdog_d, rdata_q, rdata_d;
  logic [1:0]  cause_q, cause_d;
  logic        rst_q, rst_d;

  always_comb begin
    wdog_d  = wdog_q;
    cause_d = cause_q;
    rst_d   = 1'b0;
    rdata_d = 32'd0;
    if (wdog_q != 32'd0) begin
      wdog_d = wdog_q - 32'd1;
      if (wdog_q == 32'd1) begin
        rst_d   = 1'b1;
        cause_d = CauseWatchdog;
      end
    end
    if (req_i && we_i) begin
      unique case (addr_i)
        2'd0: begin
          if (wdata_i[0]) begin
            rst_d   = 1'b1;
            cause_d = CauseReboot;
            wdog_d  = 32'd0;
          end
        end
        2'd2:    wdog_d = wdata_i;
        default: ;
      endcase
    end
    if (req_i && !we_i) begin
      unique case (addr_i)
        2'd1:    rdata_d = {30'd0, cause_q};
        2'd2:    rdata_d = wdog_q;
        default: rdata_d = 32'd0;
      endcase
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wdog_q  <= 32'd0;
      cause_q <= CausePowerOn;
      rst_q   <= 1'b0;
      rdata_q <= 32'd0;
    end else begin
      wdog_q  <= wdog_d;
      cause_q <= cause_d;
      rst_q   <= rst_d;
      rdata_q <= rdata_d;
    end
  end

  assign rdata_o    = rdata_q;
  assign core_rst_o = rst_q;
endmodule
