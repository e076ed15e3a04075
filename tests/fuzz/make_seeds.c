/* SPDX-License-Identifier: Apache-2.0 */
/*
 * make_seeds.c - writes the seed corpora of the fuzz targets
 * (tests/fuzz/corpus/<target>/, committed) from the library's own
 * encoders: a compiled program's file image, link frames, IDX files, URIs
 * and firmware image headers, each valid and malformed, in the input
 * format of its target (tests/fuzz/fuzz_<target>.c).
 *
 *   make fuzz-seeds      (mk/fuzz.mk): make_seeds tests/fuzz/corpus
 *
 * The control target's seeds (tests/fuzz/corpus/control) are not made here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <zlib.h>

#include "compile.h"
#include "ftpu_fw.h"
#include "ftpu.h"
#include "link.h"

static const char *root;

static void put(const char *target, const char *name, const void *data, size_t len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", root, target);
	if (mkdir(path, 0777) && errno != EEXIST) {
		perror(path);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s/%s", root, target, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* A byte buffer being built. */
struct buf {
	uint8_t b[8192];
	size_t n;
};

static void add(struct buf *b, const void *p, size_t n)
{
	if (n > sizeof(b->b) - b->n) {
		fprintf(stderr, "make_seeds: seed too large\n");
		exit(1);
	}
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void add8(struct buf *b, unsigned v)
{
	uint8_t c = (uint8_t)v;
	add(b, &c, 1);
}

static void add32(struct buf *b, uint32_t v)
{
	uint8_t w[4];
	ftpu_link_put_le32(w, v);
	add(b, w, 4);
}

static void add32be(struct buf *b, uint32_t v)
{
	uint8_t w[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
	add(b, w, 4);
}

static void seed(const char *target, const char *name, const struct buf *b)
{
	put(target, name, b->b, b->n);
}

/* ---- link_rx: config byte, then segments (fuzz_link_rx.c) ---- */

static void lrx_frame(struct buf *b, unsigned tag, unsigned type_sel, unsigned seq, unsigned n)
{
	add8(b, tag);
	add8(b, type_sel);
	add8(b, 0);	      /* flags */
	add8(b, seq);
	add8(b, seq >> 8);
	add8(b, 4);	      /* credit */
	add8(b, 0);
	add8(b, n);
	add8(b, seq * 7 + 1); /* payload seed */
}

static void link_rx_seeds(void)
{
	struct buf b;
	const unsigned any_4096 = 3 | 7u << 2;

	b.n = 0; /* clean frames of every type */
	add8(&b, any_4096);
	for (unsigned t = 0; t < 6; t++)
		lrx_frame(&b, 1, t, t, t * 2);
	seed("link_rx", "clean_all_types", &b);

	b.n = 0; /* garbage, a false SYNC, then a frame */
	add8(&b, any_4096);
	add8(&b, 0);
	add8(&b, 9);
	add(&b, "xxFTPUFTP", 9);
	lrx_frame(&b, 1, 0, 1, 3);
	seed("link_rx", "garbage_then_frame", &b);

	b.n = 0; /* corrupt header, corrupt payload, a cut frame, then good */
	add8(&b, any_4096);
	lrx_frame(&b, 2, 2, 5, 4);
	add8(&b, 9), add8(&b, 0), add8(&b, 0x10); /* byte 9: header */
	lrx_frame(&b, 2, 3, 6, 4);
	add8(&b, 20), add8(&b, 0), add8(&b, 0x01); /* byte 20: payload */
	lrx_frame(&b, 3, 4, 7, 4);
	add8(&b, 22), add8(&b, 0);
	lrx_frame(&b, 1, 5, 8, 2);
	seed("link_rx", "corrupt_cut", &b);

	b.n = 0; /* len fields that lie: too long, beyond the capacity, short */
	add8(&b, 3 | 5u << 2); /* ANY, 64 words */
	lrx_frame(&b, 4, 0, 9, 1);
	add8(&b, 0xff), add8(&b, 0xff);
	lrx_frame(&b, 4, 1, 10, 1);
	add8(&b, 100), add8(&b, 0);
	lrx_frame(&b, 4, 2, 11, 4);
	add8(&b, 1), add8(&b, 0);
	lrx_frame(&b, 1, 3, 12, 0);
	seed("link_rx", "len_lies", &b);

	b.n = 0; /* a device: host types refused, odd seqs refused by admit */
	add8(&b, 1 | 4u << 2 | 0x20); /* DEVICE, 8 words, admit */
	for (unsigned s = 0; s < 6; s++)
		lrx_frame(&b, 1, s, s, 3);
	lrx_frame(&b, 1, 0xc7, 20, 1); /* type 0xc7: unknown */
	seed("link_rx", "device_admit", &b);

	b.n = 0; /* a host with room for one word */
	add8(&b, 2 | 1u << 2);
	lrx_frame(&b, 1, 2, 1, 1);
	lrx_frame(&b, 1, 3, 2, 2); /* OVERFLOW */
	lrx_frame(&b, 1, 4, 3, 0xf3); /* 64 words */
	seed("link_rx", "host_small_cap", &b);

	b.n = 0;
	seed("link_rx", "empty", &b);
}

/* ---- program_file: mode byte, then the file ---- */

static void program_file_seeds(void)
{
	struct ftpu_device_info info = { .rows = 4, .cols = 4, .ub_vectors = 256,
					 .weight_tiles = 16, .acc_vectors = 256,
					 .bias_vectors = 16, .iq_words = 1024,
					 .max_payload = 4096 };
	ftpu_graph *g;
	ftpu_program *p;
	char why[256];
	float w[5 * 3], bias[3];
	for (unsigned i = 0; i < 15; i++)
		w[i] = (float)i * 0.25f - 1.0f;
	for (unsigned i = 0; i < 3; i++)
		bias[i] = (float)i;
	if (ftpu_graph_create(&g))
		exit(1);
	ftpu_tensor x = ftpu_graph_input(g, 2, 5, "x");
	ftpu_tensor m = ftpu_graph_matmul(g, x, ftpu_graph_constant(g, 5, 3, w, 3, "w"));
	ftpu_tensor y = ftpu_graph_relu(
		g, ftpu_graph_bias_add(g, m, ftpu_graph_constant(g, 1, 3, bias, 3, "b")));
	ftpu_graph_output(g, y);
	ftpu_graph_output(g, m);
	if (ftpu__compile_info(&info, g, &p, why, sizeof(why))) {
		fprintf(stderr, "make_seeds: compile: %s\n", why);
		exit(1);
	}
	uint8_t *img;
	size_t len;
	if (ftpu__program_encode(p, &img, &len))
		exit(1);
	struct buf b;

	b.n = 0;
	add8(&b, 0);
	add(&b, img, len);
	seed("program_file", "mlp_4x4", &b);
	b.b[0] = 1; /* the same, CRC recomputed by the target */
	seed("program_file", "mlp_4x4_fixcrc", &b);
	b.b[1 + 20] ^= 0x01; /* cols 5: refused by finish */
	seed("program_file", "bad_sizes", &b);
	b.b[1 + 20] ^= 0x01;
	b.b[1 + 40] = 7; /* n_inputs: the counts disagree with the length */
	seed("program_file", "bad_counts", &b);
	b.b[1 + 40] = 1;
	b.b[1 + 8] = 2; /* format version 2 */
	seed("program_file", "version_2", &b);
	b.b[1 + 8] = 1;
	size_t piece0 = 72 + 16 * (ftpu_link_get_le32(img + 40) + ftpu_link_get_le32(img + 44));
	b.b[1 + piece0] = 3; /* input piece 0: io 3 */
	seed("program_file", "bad_piece", &b);
	b.b[0] = 0;
	b.b[1] = 'X'; /* bad magic */
	seed("program_file", "bad_magic", &b);
	b.b[0] = 1;
	b.b[1] = 'F';
	b.n = 1 + 80; /* truncated */
	seed("program_file", "truncated", &b);

	free(img);
	ftpu_program_free(p);
	ftpu_graph_destroy(g);
}

/* ---- idx: mode byte, then the file ---- */

static void idx_file(struct buf *b, unsigned nd, const uint32_t *dims, const uint8_t *data)
{
	size_t total = 1;
	add32be(b, 0x0800u | nd);
	for (unsigned i = 0; i < nd; i++) {
		add32be(b, dims[i]);
		total *= dims[i];
	}
	add(b, data, total);
}

static void gzip_into(struct buf *out, const struct buf *in, size_t from)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 9, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		exit(1);
	z.next_in = (Bytef *)in->b + from;
	z.avail_in = (uInt)(in->n - from);
	z.next_out = out->b + out->n;
	z.avail_out = (uInt)(sizeof(out->b) - out->n);
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		exit(1);
	out->n = sizeof(out->b) - z.avail_out;
	deflateEnd(&z);
}

static void idx_seeds(void)
{
	uint8_t px[2 * 2 * 3], lb[6] = { 0, 1, 2, 9, 4, 5 };
	for (unsigned i = 0; i < sizeof(px); i++)
		px[i] = (uint8_t)(i * 17);
	const uint32_t im_dims[3] = { 2, 2, 3 }, lb_dims[1] = { 6 };
	struct buf b, g;

	b.n = 0;
	add8(&b, 0 | 2u << 1); /* images, 2x3 asked */
	idx_file(&b, 3, im_dims, px);
	seed("idx", "images_2x2x3", &b);
	b.b[0] = 0x40 | 1u << 1 | 4u << 3; /* gzip here, 28x28 asked: refused */
	seed("idx", "images_gz_28", &b);
	g.n = 0;
	add8(&g, 0 | 5u << 3); /* a gzip file, read 16 bytes at a time */
	gzip_into(&g, &b, 1);
	seed("idx", "images_file_gz", &g);
	add8(&g, 0); /* a byte after the gzip stream */
	seed("idx", "images_gz_junk_after", &g);
	g.n -= 9; /* the stream cut: no CRC and length */
	seed("idx", "images_gz_truncated", &g);
	b.n -= 1; /* a pixel missing */
	b.b[0] = 0;
	seed("idx", "images_truncated", &b);
	add8(&b, 1), add8(&b, 2); /* a byte too many */
	seed("idx", "images_trailing", &b);

	b.n = 0;
	add8(&b, 1 | 1u << 3); /* labels, a byte a read */
	idx_file(&b, 1, lb_dims, lb);
	seed("idx", "labels_6", &b);
	b.b[1 + 8 + 3] = 10; /* not a class */
	seed("idx", "labels_bad_class", &b);
	b.b[1 + 3] = 3; /* an image magic on labels */
	seed("idx", "labels_bad_magic", &b);

	b.n = 0; /* dimensions claiming 1 GiB, no data */
	add8(&b, 0);
	add32be(&b, 0x0803), add32be(&b, 1024), add32be(&b, 1024), add32be(&b, 1024);
	seed("idx", "images_huge_claim", &b);
}

/* ---- uri: a buffer-size byte, then the URI ---- */

static void uri_seeds(void)
{
	static const char *const uris[] = {
		"sim", "sim:rows=4", "sim:rows=16,cols=16", "sim:board=icebreaker",
		"sim:board=tangnano20k,trace=t.fst", "sim:rows=4,cols=2", "sim:rows=,",
		"ref", "ref:x", "uart:/dev/ttyUSB1", "uart:/dev/ttyUSB1@3000000",
		"uart:/dev/tty@USB@115200", "uart:@9", "uart:/dev/ttyS0@0x10",
		"usb:0403:6010", "usb:0403:6010:FT4ABC_1.x,iface=B,timeout=500", "usb:,iface=a",
		"usb:zz:1", "usb:1:2:", "xdma:/dev/xdma0", "xdma:", "bogus:x", "",
	};
	char name[32];
	for (size_t i = 0; i < sizeof(uris) / sizeof(uris[0]); i++) {
		struct buf b = { .n = 0 };
		add8(&b, i % 3 == 2 ? 0x85 : 0x7f); /* some with small buffers */
		add(&b, uris[i], strlen(uris[i]));
		snprintf(name, sizeof(name), "uri_%02zu", i);
		seed("uri", name, &b);
	}
}

/* ---- fw_image: flags, seed, 9 header words, the body ---- */

static void fw_header(struct buf *b, unsigned flags, unsigned seedb, uint32_t size,
		      uint32_t entry)
{
	add8(b, flags);
	add8(b, seedb);
	add32(b, FTPU_FW_IMAGE_MAGIC);
	add32(b, FTPU_FW_IMAGE_FORMAT);
	add32(b, FTPU_FW_ABI);
	add32(b, 3);	      /* version */
	add32(b, 0x00010000u); /* load address: the fake slot's base */
	add32(b, entry);
	add32(b, size);
	add32(b, 0);	      /* CRC: the target's flag 1 */
	add32(b, 0);	      /* HCRC: flag 0 */
}

static void fw_image_seeds(void)
{
	struct buf b;
	uint32_t body[24];
	for (unsigned i = 0; i < 24; i++)
		body[i] = 0x13u + i * 0x01000193u; /* nonzero: a stuck word shows */

	b.n = 0;
	fw_header(&b, 0x13, 1, 0, 0x00010004u); /* both CRCs and the size fixed */
	add(&b, body, sizeof(body));
	seed("fw_image", "ok", &b);
	b.b[0] = 0x17; /* a slot word stuck (seed 0: word 0) */
	b.b[1] = 0;
	seed("fw_image", "stuck_word", &b);
	b.b[0] = 0x1b; /* one DATA off by a word */
	b.b[1] = 2;
	seed("fw_image", "bad_offset", &b);
	b.b[0] = 0x11; /* the body CRC not fixed: BAD_CRC */
	seed("fw_image", "bad_crc", &b);
	b.b[0] = 0x03; /* size 0 kept: BAD_SIZE */
	seed("fw_image", "size_0", &b);

	b.n = 0;
	fw_header(&b, 0x03, 1, 64, 0x00010000u); /* more body than size: OVERRUN */
	add(&b, body, sizeof(body));
	seed("fw_image", "overrun", &b);
	b.n = 0;
	fw_header(&b, 0x03, 1, 9000 * 4, 0x00010000u); /* larger than the slot */
	seed("fw_image", "too_big", &b);
	b.n = 0;
	fw_header(&b, 0x13, 1, 0, 0x00020000u); /* entry outside the image */
	add(&b, body, 16);
	seed("fw_image", "bad_entry", &b);
	b.n = 0;
	fw_header(&b, 0x00, 1, 16, 0x00010000u); /* HCRC 0 kept */
	add(&b, body, 16);
	seed("fw_image", "bad_hcrc", &b);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: make_seeds CORPUS_DIR\n");
		return 2;
	}
	root = argv[1];
	link_rx_seeds();
	program_file_seeds();
	idx_seeds();
	uri_seeds();
	fw_image_seeds();
	return 0;
}
