// SPDX-License-Identifier: Apache-2.0
// ftpu_cpu: the control core with its memories and MMIO (docs/firmware.md):
// ftpu_rv32i, a boot ROM and a RAM (ftpu_cpu_mem), the CONTROL mailbox
// (ftpu_cpu_mbox), the system registers (ftpu_cpu_sys), a bridge to the
// control-plane registers (docs/registers.md, the reg_* port of
// ftpu_control) and a window for further devices (ext_*).
//
// Memory map (byte addresses; sizes are powers of two):
//   0x0000_0000  ROM   RomWords words, boot ROM: the factory firmware, from
//                      RomInit. Fetch and load; a store is an access fault
//   0x0001_0000  RAM   RamWords words: data, stack, and an updated
//                      firmware image, which runs from here. Fetch, load,
//                      store
//   0x4000_0000  REG   control-plane register a at 0x4000_0000 + 4a
//                      (a = 0..255); word accesses (sub-word stores write
//                      the whole word as the core drives it)
//   0x4000_0400  MBOX  ftpu_cpu_mbox
//   0x4000_0500  SYS   ftpu_cpu_sys
//   0x4000_1000  EXT   up to 0x4000_FFFF: the ext_* port
// Everything else, ROM/RAM beyond their sizes and MMIO 0x4000_0600..0FFF,
// is an access fault; so is a fetch from MMIO.
//
// Every access takes two cycles (request, ready) except MBOX TX writes
// while the transmitter is busy and EXT accesses, which take as long as the
// ext device needs.
//
// EXT port: ext_req_o with ext_we_o, ext_addr_o (offset in the MMIO window,
// word aligned), ext_be_o, ext_wdata_o held until ext_ready_i; ext_ready_i
// is ignored in the first cycle of a request (a device answers one cycle
// after the request at the earliest), ext_rdata_i and ext_err_i (access
// fault) are taken with it.
//
// REG port: the protocol of ftpu_control's register interface: reg_req_o
// high for one cycle with reg_we_o, reg_addr_o, reg_wdata_o; a read's data
// on reg_rdata_i in the next cycle. reg_gnt_i low holds the access (the
// register port is shared, ftpu_top): reg_req_o stays low and the core
// waits until a cycle with reg_gnt_i high; tie it to 1 when not shared.
// reg_rdata_i must be 0 in cycles that do not follow a granted read (it is
// ORed with the MBOX and SYS read data).
//
// Load port (simulation, LoadPort = 1; ignored otherwise): writes the ROM
// or RAM word at ld_addr_i (a byte address without its bits 1:0), meant for
// while the core is held in reset; addresses outside ROM and RAM are
// ignored.
module ftpu_cpu #(
  parameter int RomWords = 2048,
  parameter int RamWords = 4096,
  parameter     RomInit  = "",
  parameter     RamInit  = "",
  parameter bit LoadPort = 1'b0,
  parameter bit FullCounters = 1'b1  // ftpu_rv32i: 0 keeps only a 32-bit mcycle
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // control-plane registers
  output logic        reg_req_o,
  output logic        reg_we_o,
  output logic [7:0]  reg_addr_o,
  output logic [31:0] reg_wdata_o,
  input  logic [31:0] reg_rdata_i,
  input  logic        reg_gnt_i,   // the register port is free in this cycle
  // CONTROL frames in, RESPONSE frames out
  input  logic        ctl_valid_i,
  output logic        ctl_ready_o,
  input  logic [31:0] ctl_data_i,
  output logic        rsp_valid_o,
  input  logic        rsp_ready_i,
  output logic [31:0] rsp_data_o,
  input  logic [15:0] credit_i,
  // further MMIO devices
  output logic        ext_req_o,
  output logic        ext_we_o,
  output logic [15:0] ext_addr_o,
  output logic [3:0]  ext_be_o,
  output logic [31:0] ext_wdata_o,
  input  logic        ext_ready_i,
  input  logic        ext_err_i,
  input  logic [31:0] ext_rdata_i,
  // backdoor loader
  input  logic        ld_we_i,
  input  logic [31:2] ld_addr_i,  // word address
  input  logic [31:0] ld_data_i,
  // status
  output logic        core_rst_o,  // the core is held in reset (REBOOT, watchdog)
  output logic        retire_o,
  output logic        trap_o
);
  localparam int RomAW = $clog2(RomWords);
  localparam int RamAW = $clog2(RamWords);
  if (RomWords != 1 << RomAW || RamWords != 1 << RamAW || RomAW > 14 || RamAW > 14) begin : g_bad_size
    $error("ftpu_cpu: RomWords and RamWords must be powers of two, at most 2^14 (the memory map)");
  end

  // ---- the core ------------------------------------------------------------
  logic        core_rst, core_rst_n;
  logic        req, we, fetch, ready, err;
  logic [31:0] addr, wdata, rdata;
  logic [3:0]  be;

  assign core_rst_n = rst_ni && !core_rst;
  assign core_rst_o = core_rst;

  ftpu_rv32i #(.FullCounters(FullCounters)) u_core (
    .clk_i,
    .rst_ni     (core_rst_n),
    .bus_req_o  (req),
    .bus_we_o   (we),
    .bus_fetch_o(fetch),
    .bus_addr_o (addr),
    .bus_be_o   (be),
    .bus_wdata_o(wdata),
    .bus_ready_i(ready),
    .bus_err_i  (err),
    .bus_rdata_i(rdata),
    .retire_o,
    .trap_o
  );

  // ---- address decode --------------------------------------------------------
  logic sel_rom, sel_ram, sel_mmio, sel_reg, sel_mbox, sel_sys, sel_ext, bad;
  // ROM and RAM sizes are powers of two: "below the size" is a test of the
  // bits above the memory's address, not a comparator (a carry chain, which
  // on ECP5 added a second chain after the core's adder).
  assign sel_rom  = addr[31:16] == 16'h0000 && (addr[15:2] >> RomAW) == '0;
  assign sel_ram  = addr[31:16] == 16'h0001 && (addr[15:2] >> RamAW) == '0;
  assign sel_mmio = addr[31:16] == 16'h4000 && !fetch;
  assign sel_reg  = sel_mmio && addr[15:10] == 6'd0;
  assign sel_mbox = sel_mmio && addr[15:8] == 8'h04 && addr[7:5] == 3'd0;
  assign sel_sys  = sel_mmio && addr[15:8] == 8'h05 && addr[7:4] == 4'd0;
  assign sel_ext  = sel_mmio && addr[15:12] != 4'd0;
  assign bad = !(sel_rom && !we) && !sel_ram && !sel_reg && !sel_mbox && !sel_sys && !sel_ext;

  // An access acts (reads or writes its target) in one cycle, the first it
  // can, and is ready in the next. EXT devices answer by themselves. What
  // the access selected is kept from the cycle it acts: its ready, fault
  // and read data then come from registers, not from the address, which
  // keeps the core's adder out of the paths into its register file
  // (it was the longest path of the ULX3S 25F's whole device).
  logic acted_q, act, can_act, ext_wait_q, mbox_tx_ready;
  logic rom_q, ram_q, bad_q;  // what the access that acted selected
  assign can_act = !(sel_mbox && we && !mbox_tx_ready) && !(sel_reg && !reg_gnt_i);
  assign act     = req && !sel_ext && !acted_q && can_act;

  always_ff @(posedge clk_i or negedge core_rst_n) begin
    if (!core_rst_n) begin
      acted_q    <= 1'b0;
      ext_wait_q <= 1'b0;
      {rom_q, ram_q, bad_q} <= '0;
    end else begin
      acted_q    <= act;
      ext_wait_q <= ext_req_o && !ext_ready_i;
      if (act) {rom_q, ram_q, bad_q} <= {sel_rom, sel_ram, bad};
    end
  end

  // acted_q follows a non-EXT access, ext_wait_q an EXT one: never both.
  assign ready = acted_q || (ext_wait_q && ext_ready_i);
  assign err   = acted_q ? bad_q : ext_err_i;

  // ---- memories ------------------------------------------------------------------
  logic [31:0] rom_rdata, ram_rdata;
  logic        rom_req, rom_we, ram_req, ram_we;
  logic [RomAW-1:0] rom_addr;
  logic [RamAW-1:0] ram_addr;
  logic [3:0]  mem_be;
  logic [31:0] mem_wdata;
  logic        ld_rom, ld_ram;

  logic ld;
  assign ld        = LoadPort && ld_we_i;
  assign ld_rom    = ld && ld_addr_i[31:16] == 16'h0000 && (ld_addr_i[15:2] >> RomAW) == '0;
  assign ld_ram    = ld && ld_addr_i[31:16] == 16'h0001 && (ld_addr_i[15:2] >> RamAW) == '0;
  assign rom_req   = ld_rom || (act && sel_rom && !we);
  assign rom_we    = ld_rom;
  assign rom_addr  = ld ? ld_addr_i[RomAW+1:2] : addr[RomAW+1:2];
  assign ram_req   = ld_ram || (act && sel_ram);
  assign ram_we    = ld_ram || we;
  assign ram_addr  = ld ? ld_addr_i[RamAW+1:2] : addr[RamAW+1:2];
  assign mem_be    = ld ? 4'b1111 : be;
  assign mem_wdata = ld ? ld_data_i : wdata;

  ftpu_cpu_mem #(.Words(RomWords), .InitFile(RomInit)) u_rom (
    .clk_i,
    .req_i  (rom_req),
    .we_i   (rom_we),
    .addr_i (rom_addr),
    .be_i   (mem_be),
    .wdata_i(mem_wdata),
    .rdata_o(rom_rdata)
  );

  ftpu_cpu_mem #(.Words(RamWords), .InitFile(RamInit)) u_ram (
    .clk_i,
    .req_i  (ram_req),
    .we_i   (ram_we),
    .addr_i (ram_addr),
    .be_i   (mem_be),
    .wdata_i(mem_wdata),
    .rdata_o(ram_rdata)
  );

  // ---- MMIO ----------------------------------------------------------------------
  logic [31:0] mbox_rdata, sys_rdata;

  assign reg_req_o   = act && sel_reg;
  assign reg_we_o    = we;
  assign reg_addr_o  = addr[9:2];
  assign reg_wdata_o = wdata;

  ftpu_cpu_mbox u_mbox (
    .clk_i,
    .rst_ni,
    .req_i     (req && sel_mbox && !acted_q),
    .we_i      (we),
    .addr_i    (addr[4:2]),
    .wdata_i   (wdata),
    .rdata_o   (mbox_rdata),
    .tx_ready_o(mbox_tx_ready),
    .ctl_valid_i,
    .ctl_ready_o,
    .ctl_data_i,
    .rsp_valid_o,
    .rsp_ready_i,
    .rsp_data_o,
    .credit_i
  );

  ftpu_cpu_sys u_sys (
    .clk_i,
    .rst_ni,
    .req_i     (act && sel_sys),
    .we_i      (we),
    .addr_i    (addr[3:2]),
    .wdata_i   (wdata),
    .rdata_o   (sys_rdata),
    .core_rst_o(core_rst)
  );

  assign ext_req_o   = req && sel_ext;
  assign ext_we_o    = we;
  assign ext_addr_o  = addr[15:0];
  assign ext_be_o    = be;
  assign ext_wdata_o = wdata;

  // The REG, MBOX and SYS read data are 0 unless they were read (their
  // protocol), so they are ORed; memories hold their last word.
  always_comb begin
    if (ext_wait_q) rdata = ext_rdata_i;
    else if (rom_q) rdata = rom_rdata;
    else if (ram_q) rdata = ram_rdata;
    else            rdata = reg_rdata_i | mbox_rdata | sys_rdata;
  end
endmodule
