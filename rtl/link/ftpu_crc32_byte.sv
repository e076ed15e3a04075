// SPDX-License-Identifier: Apache-2.0
// ftpu_crc32_byte: one byte of the reflected CRC-32 (poly 0xEDB88320, the
// zlib/IEEE 802.3 CRC), combinational.
//
// This is the raw register step crc_o = (crc_i ^ data_i) shifted out bit by
// bit, least significant first; callers apply zlib's conventions themselves:
// start from 32'hFFFF_FFFF and invert the register at the end. The step is
// linear over GF(2) in (crc_i, data_i) jointly, which ftpu_link_rx relies on
// for its rolling header CRC.
module ftpu_crc32_byte (
  input  logic [31:0] crc_i,
  input  logic [7:0]  data_i,
  output logic [31:0] crc_o
);
  localparam logic [31:0] Poly = 32'hEDB8_8320;

  always_comb begin
    crc_o = crc_i ^ {24'h0, data_i};
    for (int i = 0; i < 8; i++) begin
      crc_o = (crc_o >> 1) ^ (Poly & {32{crc_o[0]}});
    end
  end
endmodule
