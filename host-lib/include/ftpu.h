/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ftpu.h - public interface of libftpu, the host library of the ftpu
 * bfloat16 matrix accelerator.
 *
 * Failure contract, for every function below unless it says otherwise:
 * the return value is an enum ftpu_status, 0 on success and a negative
 * code on failure; ftpu_strerror() names it, ftpu_last_error() gives the
 * detail for the device handle. On failure, output arguments are left
 * unchanged (a NULL handle is stored where a function returns one) and no
 * caller memory outside the documented outputs is written. The library
 * never calls abort() or exit() and never waits without a timeout.
 *
 * Threads: one ftpu_device may be used from several threads; calls on it
 * are serialized inside. Graphs and programs are not locked: use each from
 * one thread at a time.
 *
 * Lifetimes (as libusb's): using a handle after it is closed or freed
 * (ftpu_close, ftpu_graph_destroy, ftpu_program_free), closing or freeing
 * it twice, or closing a device while another thread is in a call on it
 * is undefined. A device handle is checked anyway, by its address alone:
 * a call on a closed one, a second ftpu_close included, fails with
 * FTPU_ERR_STATE (the reason in ftpu_last_error(NULL)) instead of hanging,
 * unless a later ftpu_open returned the same address.
 */
#ifndef FTPU_H
#define FTPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FTPU_VERSION_MAJOR 0
#define FTPU_VERSION_MINOR 2
#define FTPU_VERSION_PATCH 0
#define FTPU_VERSION_STRING "0.2.0"
/* FTPU_VERSION_MAJOR << 16 | MINOR << 8 | PATCH */
#define FTPU_VERSION ((FTPU_VERSION_MAJOR << 16) | (FTPU_VERSION_MINOR << 8) | FTPU_VERSION_PATCH)

enum ftpu_status {
	FTPU_OK = 0,
	FTPU_ERR_INVALID = -1,   /* bad argument: NULL, zero or overflowing size */
	FTPU_ERR_NOMEM = -2,     /* allocation failed */
	FTPU_ERR_TIMEOUT = -3,   /* the device did not answer in time */
	FTPU_ERR_IO = -4,        /* the transport failed */
	FTPU_ERR_PROTOCOL = -5,  /* malformed or unexpected frame */
	FTPU_ERR_DEVICE = -6,    /* the device reported a fault */
	FTPU_ERR_UNSUPPORTED = -7, /* not available in this build or device */
	FTPU_ERR_NOT_FOUND = -8, /* no such device, file or URI scheme */
	FTPU_ERR_CORRUPT = -9,   /* a file or program failed its checks */
	FTPU_ERR_SHAPE = -10,    /* mismatched or uncompilable shapes */
	FTPU_ERR_STATE = -11,    /* the handle is closed, failed or in the wrong state */
};

/* A static, human-readable name for a status code; never NULL. */
const char *ftpu_strerror(int status);

/* The library's version, FTPU_VERSION of the build (may differ from the
 * header the caller compiled against). */
unsigned ftpu_version(void);

/* The link protocol this library speaks, major << 16 | minor (as INFO's
 * protocol, struct ftpu_device_info): ftpu_open refuses a device of
 * another major version. */
unsigned ftpu_protocol_version(void);

/* ---- devices -------------------------------------------------------------- */

typedef struct ftpu_device ftpu_device;

/*
 * Opens a device by URI:
 *   "sim" or "sim:OPTS"  the in-process Verilated device (the default when
 *                        uri is NULL or ""); OPTS, comma-separated:
 *                        rows=N,cols=N (a built model's size), trace=FILE.fst,
 *                        board=NAME (ftpu_builtin_devices lists those
 *                        linked); in the shared libftpu.so only: a
 *                        program linked with the static libftpu.a gets
 *                        FTPU_ERR_UNSUPPORTED
 *   "ref"                the C model of the device (bit-exact, fast);
 *                        "ref:rows=4" in sim:rows=4's configuration
 *   "uart:TTY[@BAUD]"    a serial port, default 3000000 baud
 *   "xdma:/dev/xdmaN"    a PCIe card through the Xilinx XDMA driver
 *   "usb:..."            a USB link (docs/transports.md)
 * A malformed URI or an unknown option is FTPU_ERR_INVALID, an unknown
 * scheme or a missing device FTPU_ERR_NOT_FOUND, a port that cannot be
 * opened (permission, in use) FTPU_ERR_IO; the reason, naming the port, is
 * in ftpu_last_error(NULL) for the calling thread. docs/transports.md.
 */
int ftpu_open(const char *uri, ftpu_device **out);

/* Closes the device and frees the handle; NULL is a no-op. Returns the
 * status of the close (a transport error), the handle is freed anyway;
 * FTPU_ERR_STATE for a handle that is not open (closed already). */
int ftpu_close(ftpu_device *dev);

/* The detail of the last failure on dev (or of ftpu_open in this thread
 * when dev is NULL): a message valid until the next call on dev; "" when
 * there was none. Never NULL. A long URI or path in it is elided ("..."). */
const char *ftpu_last_error(const ftpu_device *dev);

struct ftpu_device_info {
	char transport[16];       /* "sim", "ref", ... */
	uint32_t protocol;        /* link protocol, major << 16 | minor */
	unsigned rows, cols;      /* the systolic array */
	unsigned row_delay;       /* cycles a partial sum spends in a PE */
	uint32_t ub_vectors;      /* unified buffer, rows-wide bf16 vectors */
	uint32_t weight_tiles;    /* weight memory, rows x cols bf16 tiles */
	uint32_t acc_vectors;     /* accumulators, cols-wide fp32 vectors */
	uint32_t bias_vectors;    /* bias memory, cols-wide fp32 vectors */
	uint32_t iq_words;        /* receive buffer (instruction queue) words */
	uint32_t clock_hz;
	uint32_t max_payload;     /* words per frame */
	uint32_t features;        /* FTPU_FEATURE_* masks (INFO FEATURES; 0 from
				   * a protocol 1.0 device) */
	uint32_t link_bytes;      /* bytes the link moves a device cycle each way
				   * (INFO LINK_BYTES; 1 from a device before 1.2) */
};

/* ftpu_device_info.features: the vector unit (docs/vector.md); the small
 * profile's in-order dispatch (docs/core.md: the same results, units do not
 * overlap, so a step takes longer; nothing for a host to change) */
#define FTPU_FEATURE_VECTOR_UNIT (1u << 0)
#define FTPU_FEATURE_IN_ORDER (1u << 1)

int ftpu_get_info(ftpu_device *dev, struct ftpu_device_info *info);

/* Every wait for the device ends after timeout_ms without progress
 * (FTPU_ERR_TIMEOUT; the device is then failed until ftpu_reset()).
 * Default 30000 ms (a simulated device is slow); 0 is FTPU_ERR_INVALID. */
int ftpu_set_timeout(ftpu_device *dev, unsigned timeout_ms);

/* Resets the device (CONTROL RESET): clears a failed state, faults,
 * counters and resident weights. Whatever the link still holds from before
 * (answers to abandoned requests, corrupt bytes) is skipped up to the
 * RESET's answer. Fails with the transport's errors or FTPU_ERR_TIMEOUT. */
int ftpu_reset(ftpu_device *dev);

/* ---- firmware (the control core, docs/firmware.md) ---------------------------- */

/* What the control core's firmware reports (CONTROL FW_INFO, op 7). */
struct ftpu_fw_info {
	uint32_t version;      /* running firmware: major << 16 | minor << 8 | patch */
	uint32_t abi;          /* register ABI, major << 16 | minor */
	uint32_t running;      /* 0 the boot ROM's firmware, 1 an update (RAM) */
	uint32_t reset_cause;  /* last boot: 0 power-on, 1 REBOOT, 2 watchdog */
	uint32_t boots;        /* boots since power-on */
	uint32_t app_state;    /* update slot: 0 none, 1 accepted, 2 booting,
				* 3 running, 4 failed */
	uint32_t app_version, app_size, app_crc; /* the accepted update */
	uint32_t update_error; /* why the last refused update op failed (0 none) */
	uint32_t fw_faults;    /* firmware faults (traps, watchdog) since power-on */
	uint32_t fault_code;   /* the last: 0x100 + mcause, 0x200 watchdog, ... */
	uint32_t fault_pc, fault_value;
};

/* FW_INFO into *info. FTPU_ERR_UNSUPPORTED when the device has no control
 * core (it answers UNKNOWN_OP: ftpu_control's FSM, the C model; every
 * ftpu_fw_* call is FTPU_ERR_UNSUPPORTED there, the ops that carry
 * arguments, which such a device answers BAD_REQUEST, included);
 * FTPU_ERR_INVALID for NULLs; the transport's errors, FTPU_ERR_TIMEOUT,
 * FTPU_ERR_PROTOCOL for a malformed answer. */
int ftpu_fw_info(ftpu_device *dev, struct ftpu_fw_info *info);

/* The firmware's self-test (CONTROL SELFTEST, op 8), run on the core:
 * *passed, and masks of the tests run and failed (bit 0 CRC, 1 an integer
 * GEMM checked by checksums, 2 RAM pattern, 3 the accepted update's CRC).
 * A test that fails is not an error: the call returns FTPU_OK with *passed
 * false. Fails as ftpu_fw_info(). */
int ftpu_fw_selftest(ftpu_device *dev, bool *passed, uint32_t *ran, uint32_t *failed);

/* Loads a firmware update image (make firmware: build/fw/ftpu_fw_app.img;
 * header and body, docs/firmware.md §5) over the link: UPDATE_BEGIN,
 * UPDATE_DATA in order, UPDATE_COMMIT. The device checks it (magic, CRCs,
 * ABI, version, size) and keeps it in RAM; with boot, BOOT 1 then starts it
 * (the boot ROM checks its CRC once more) and the call returns once the
 * new firmware answers FW_INFO. A refused image is FTPU_ERR_CORRUPT, the
 * device's reason in ftpu_last_error() (and FW_INFO update_error); the
 * device keeps running its firmware. FTPU_ERR_INVALID for NULLs or an
 * image shorter than its header or not a multiple of 4 bytes;
 * FTPU_ERR_UNSUPPORTED without a control core; the transport's errors. */
int ftpu_fw_load(ftpu_device *dev, const void *image, size_t bytes, bool boot);

/* Reboots the control core into the boot ROM's firmware (which = 0) or the
 * accepted update (1) and waits until it answers FW_INFO. FTPU_ERR_CORRUPT
 * when the device refuses (no accepted image); otherwise as ftpu_fw_info(). */
int ftpu_fw_boot(ftpu_device *dev, unsigned which);

/* ---- discovery --------------------------------------------------------------- */

/*
 * Calls found(arg, uri, what) once for every board device this machine may
 * have, as each transport finds them without opening them: serial ports
 * $FTPU_DEV_DIR/ttyUSB* and ttyACM* (uart:), XDMA cards
 * $FTPU_DEV_DIR/xdma*_user (xdma:), USB devices (usb:). FTPU_DEV_DIR, the
 * directory of device nodes, defaults to /dev. uri is what ftpu_open()
 * takes, what a short description; both are valid during the call.
 * found() returns nonzero to stop. "sim" and "ref" are not reported.
 * Returns the number of devices reported. A transport that cannot look
 * (no permission to list) is skipped and its reason is in
 * ftpu_last_error(NULL) ("" when every transport could look). Fails only
 * with FTPU_ERR_INVALID (found NULL).
 */
int ftpu_discover(int (*found)(void *arg, const char *uri, const char *what),
		  void *arg);

/*
 * Calls found(arg, uri, what) once for every in-process device this
 * program can open, without opening it: the simulated devices it was
 * linked with ("sim", "sim:rows=4", "sim:board=NAME" for each simulated
 * board; none in a program linked with the static libftpu.a alone) and
 * "ref", the C model. found() returns nonzero to stop. Returns the number
 * reported; fails only with FTPU_ERR_INVALID (found NULL).
 */
int ftpu_builtin_devices(int (*found)(void *arg, const char *uri, const char *what),
			 void *arg);

/*
 * Opens uri, reads its INFO into *info waiting at most timeout_ms for the
 * answer (0: ftpu_open's default), and closes it: whether a discovered
 * device answers. Fails as ftpu_open(), the reason in ftpu_last_error(NULL);
 * FTPU_ERR_INVALID for a NULL info.
 */
int ftpu_probe(const char *uri, unsigned timeout_ms, struct ftpu_device_info *info);

/* Statistics of one run (ftpu_gemm, ftpu_run), from the device's counters.
 * On "ref" the cycle counts are the C model's stall-free compute estimate,
 * without link time, so utilization and roofline say little there. */
struct ftpu_stats {
	uint64_t cycles;        /* device clock cycles from first byte to idle */
	uint64_t busy, idle;    /* cycles with / without an instruction executing */
	uint64_t macs;          /* multiply-accumulates done by the array */
	uint64_t weight_stall, input_stall, output_stall; /* cycles, docs/core.md */
	uint64_t bytes_in, bytes_out; /* link bytes to / from the device */
	uint64_t instructions;  /* instructions retired */
	/* The share of the array's peak the run used, link time included:
	 * macs / (rows * cols * cycles). A run whose operands come over the
	 * link is bound by it, not by the array (the array alone, data on the
	 * device, nears 1.0: docs/array.md). */
	double utilization;
	/* The link roofline: the best utilization the run's link bytes allow,
	 * compute cycles / max(compute, link) cycles (compute = macs / (rows
	 * * cols), link = the larger of bytes_in and bytes_out over the
	 * device's link_bytes a cycle). A bound, not a result: utilization /
	 * roofline is how close the run came to it. */
	double roofline;
	double host_seconds;    /* wall time of the call */
};

/* The stats of the last successful run on dev. */
int ftpu_last_stats(ftpu_device *dev, struct ftpu_stats *stats);

/* ---- GEMM for training code ------------------------------------------------ */

enum ftpu_transpose { FTPU_NO_TRANS = 0, FTPU_TRANS = 1 };

/*
 * C = alpha * op(A) * op(B) + beta * C, row-major as cblas_sgemm with
 * CblasRowMajor: op(A) is m x k, op(B) k x n, C m x n; lda, ldb, ldc are the
 * row strides in elements of the matrices as stored (A is m x k when not
 * transposed, k x m when transposed; likewise B). The products run on the
 * device: A and B converted to bf16 (a subnormal element is first flushed
 * to a zero of its sign, DAZ; then round to nearest even), fp32 accumulation
 * in the plain sequential k order (docs/numerics.md). alpha and beta are
 * applied to the device's result R on the host in fp32, in the caller's
 * floating-point environment (libftpu leaves it as it is: by default round
 * to nearest even, subnormals not flushed): C = alpha*R + beta*C, each
 * operation rounded separately, never fused (docs/numerics.md, Host
 * operands, alpha and beta). alpha = 1 and beta = 0 copy R's bits; beta = 0
 * does not read C; alpha = 0 gives beta*C (+0 for beta = 0) and reads
 * neither A nor B, as the reference BLAS (they may then be NULL; their
 * leading dimensions are still checked). A or B may alias C: the
 * operands are packed before C is written. Any m, n, k >= 1.
 * FTPU_ERR_INVALID for NULLs, zero sizes, leading dimensions too small or
 * sizes whose products overflow. B's bf16 image stays resident in the
 * device's weight memory while it fits and is unchanged, so repeated calls
 * with the same B skip its transfer.
 */
int ftpu_gemm(ftpu_device *dev, enum ftpu_transpose trans_a,
	      enum ftpu_transpose trans_b, size_t m, size_t n, size_t k,
	      float alpha, const float *a, size_t lda, const float *b,
	      size_t ldb, float beta, float *c, size_t ldc);

/* The same with bf16 operands (uint16_t bit patterns, sent as they are: the
 * device counts a subnormal one as zero) and fp32 C. */
int ftpu_gemm_bf16(ftpu_device *dev, enum ftpu_transpose trans_a,
		   enum ftpu_transpose trans_b, size_t m, size_t n, size_t k,
		   float alpha, const uint16_t *a, size_t lda,
		   const uint16_t *b, size_t ldb, float beta, float *c,
		   size_t ldc);

/* ---- the device's numerics on the host (docs/numerics.md) ------------------- */

/* fp32 bits -> bf16 bits as the device converts: a subnormal flushes to a
 * signed zero, else round to nearest even, overflow to +-Inf, NaN stays a
 * quiet NaN with its sign. */
uint16_t ftpu_f32_to_bf16(uint32_t x);

/*
 * The reference GEMM, bit for bit what the device computes:
 * C[M x N] = (accumulate ? C : +0) + A[M x K] * B[K x N] in bf16 with fp32
 * accumulation in sequential k order; row-major, leading dimensions in
 * elements, C as fp32 bits. Sets and restores the FPU mode itself.
 */
void ftpu_ref_gemm(size_t M, size_t N, size_t K, const uint16_t *A,
		   size_t lda, const uint16_t *B, size_t ldb, uint32_t *C,
		   size_t ldc, bool accumulate);

/* ---- graphs and programs ------------------------------------------------------ */

typedef struct ftpu_graph ftpu_graph;
typedef struct ftpu_program ftpu_program;

/*
 * A tensor of a graph: an id >= 0 returned by the builders below (it names
 * its graph too, so a tensor of another graph is refused; not an index),
 * or a negative status when the builder failed. A graph holds at most 2^21
 * tensors. Builders accept a failed
 * tensor as input and fail with its status, so a graph can be built
 * without checking every step: the graph keeps its first failure and
 * ftpu_compile() reports it (status and message). Every builder failure
 * also leaves its detail in ftpu_last_error(NULL) for the calling thread.
 *
 * Builders fail with FTPU_ERR_INVALID for a NULL graph or values, a zero
 * size, rows or cols of 2^31 or more or more than 2^32 elements, a
 * tensor that is not the graph's; FTPU_ERR_SHAPE for operands whose shapes
 * do not fit the operation (the message names both); FTPU_ERR_NOMEM.
 */
typedef int ftpu_tensor;

/* A new, empty graph in *out. FTPU_ERR_INVALID (out NULL), FTPU_ERR_NOMEM. */
int ftpu_graph_create(ftpu_graph **out);
/* Frees g and everything it copied; NULL is a no-op. */
void ftpu_graph_destroy(ftpu_graph *g);

/* An fp32 rows x cols input, bound at each ftpu_run (name may be NULL). */
ftpu_tensor ftpu_graph_input(ftpu_graph *g, size_t rows, size_t cols, const char *name);
/* A constant fp32 rows x cols operand (weights, biases): its values are
 * copied now (row-major, stride ld >= cols) and become part of the program. */
ftpu_tensor ftpu_graph_constant(ftpu_graph *g, size_t rows, size_t cols,
				const float *values, size_t ld, const char *name);
/* x (m x k) times w (k x n). */
ftpu_tensor ftpu_graph_matmul(ftpu_graph *g, ftpu_tensor x, ftpu_tensor w);
/* x (m x n) plus bias (1 x n), broadcast over the rows. */
ftpu_tensor ftpu_graph_bias_add(ftpu_graph *g, ftpu_tensor x, ftpu_tensor bias);
/* max(x, 0) elementwise (ReLU of docs/numerics.md). */
ftpu_tensor ftpu_graph_relu(ftpu_graph *g, ftpu_tensor x);
/* Marks x as an output, read back as fp32 at each run (in the order marked;
 * a tensor may be marked more than once). */
int ftpu_graph_output(ftpu_graph *g, ftpu_tensor x);

/*
 * Compiles g for dev's sizes into a program: matmuls tiled for the array,
 * bias and ReLU fused into ACTIVATE, intermediates kept on the device, a
 * batch larger than the device's buffers run in chunks of rows. The graph
 * may be destroyed afterwards.
 *
 * What the device computes: matmul(x, w) with w a constant is the product
 * of x and w converted to bf16 (subnormals flushed to zero first, then
 * RNE), accumulated in fp32 (docs/numerics.md);
 * a bias_add (of a constant) and/or a relu directly after a matmul are
 * applied to its fp32 result by the activation unit and give bf16 values
 * (returned widened to fp32). A matmul's x may be an input, a matmul
 * result (then rounded to bf16) or such an activation. Outputs are matmul
 * results (fp32) or activations. All inputs the outputs need share one
 * row count (the batch). Bit-exact with the reference (docs/numerics.md)
 * with one exception: when a layer's width is not a multiple of the
 * array's and a row of its x holds an infinity, that row of the next
 * layer comes out all NaN (the padding lanes hold Inf * 0).
 *
 * Fails with the graph's first builder failure; FTPU_ERR_INVALID for NULL
 * arguments or a graph without outputs; FTPU_ERR_SHAPE for inputs of
 * different row counts; FTPU_ERR_UNSUPPORTED for what the device cannot do
 * (a matmul whose w is not a constant, bias_add or relu not after a
 * matmul, an input or constant as an output) or what does not fit its
 * memories (weights, biases, one batch row's activations). The reason is
 * in ftpu_last_error(dev).
 */
int ftpu_compile(ftpu_device *dev, const ftpu_graph *g, ftpu_program **out);

/*
 * Runs a program: inputs[i] holds input i (in the order created, row-major,
 * dense), outputs[j] receives output j (dense fp32). stats may be NULL.
 * A program runs on any device whose sizes equal those it was compiled
 * for (FTPU_ERR_SHAPE otherwise); it can be run any number of times. The
 * constants are sent only when the device does not hold them already (the
 * last program or GEMM that used its weight memory was another).
 * FTPU_ERR_INVALID for NULL arguments; the device's errors (ftpu__execute:
 * FTPU_ERR_DEVICE, FTPU_ERR_TIMEOUT, ...). Outputs are written only on
 * success.
 */
int ftpu_run(ftpu_device *dev, ftpu_program *p, const float *const *inputs,
	     float *const *outputs, struct ftpu_stats *stats);

/* Number of inputs and outputs (either pointer may be NULL); the shape of
 * input (is_output 0) or output (is_output 1) number index.
 * FTPU_ERR_INVALID for a NULL program, is_output other than 0 or 1 or an
 * index out of range. */
int ftpu_program_io(const ftpu_program *p, size_t *n_inputs, size_t *n_outputs);
int ftpu_program_shape(const ftpu_program *p, int is_output, size_t index,
		       size_t *rows, size_t *cols);

/*
 * Saves to / loads from a versioned file (magic, format version, device
 * sizes, CRC-32 of the contents; host-lib/src/program.c has the layout).
 * Save writes a temporary file next to path and renames it over path, so
 * path is never left half-written; a symbolic link is written through (its
 * target is replaced, the link stays; one whose target's directory does
 * not exist is FTPU_ERR_NOT_FOUND). Load: a corrupt, truncated or foreign
 * file, or one that is not a regular file (a FIFO, a device: refused
 * without blocking, ftpu_open_file), is FTPU_ERR_CORRUPT, a newer format
 * FTPU_ERR_UNSUPPORTED, a missing file FTPU_ERR_NOT_FOUND, other I/O errors
 * FTPU_ERR_IO. The detail is in
 * ftpu_last_error(NULL) for the calling thread.
 */
int ftpu_program_save(const ftpu_program *p, const char *path);
int ftpu_program_load(const char *path, ftpu_program **out);
/* NULL is a no-op. */
void ftpu_program_free(ftpu_program *p);

/* ---- training on the device (docs/training.md) ---------------------------------- */

/*
 * A trainer keeps a dense network's fp32 weights, biases and optimizer
 * slots in the device's memories and compiles its training step once
 * (forward, backward, optimizer) into device programs: per step the host
 * sends the batch (bf16) and the gradient of the loss at the logits, and
 * receives the logits; softmax cross-entropy runs on the host (the device
 * has no exp). That needs a device with the vector unit
 * (FTPU_FEATURE_VECTOR_UNIT) and memories that hold the model, the batch
 * and the optimizer's state (INFO's sizes); where the device has not (a
 * board), the trainer keeps the weights and the optimizer on the host and
 * runs every matmul on the device through ftpu_gemm_bf16, computing the
 * same bits the device's programs would (ftpu_train_config.placement,
 * docs/training.md, Placement).
 *
 * The network: widths[0] inputs, layers l = 1..n_layers of
 * widths[l] units (y = x W_l + b_l, W_l widths[l-1] x widths[l]), ReLU
 * after every layer but the last, whose widths[n_layers] outputs are the
 * logits of as many classes.
 */
#define FTPU_TRAIN_MAX_LAYERS 8

enum ftpu_optimizer {
	FTPU_OPTIMIZER_ADAM = 0, /* Keras' Adam: learning_rate, beta1, beta2, epsilon */
	FTPU_OPTIMIZER_SGD = 1,  /* Keras' SGD: learning_rate, momentum (0: plain) */
};

/* How a trainer's x arrives (ftpu_train_config.input). */
enum ftpu_train_input {
	FTPU_TRAIN_INPUT_F32 = 0, /* fp32 (ftpu_train_step/_logits), sent as bf16 */
	FTPU_TRAIN_INPUT_U8 = 1,  /* bytes p (ftpu_train_step_u8/_logits_u8), pixels
				   * as UNORM8: the network's input is bf16(p / 255),
				   * exactly what fp32 p / 255.0f sent as bf16 gives;
				   * half the link bytes (HOST_READ U8, protocol 1.2) */
};

/* Where a trainer keeps its state (ftpu_train_config.placement). */
enum ftpu_train_placement {
	FTPU_TRAIN_AUTO = 0,	/* on the device where it can hold it, else the host */
	FTPU_TRAIN_ON_DEVICE = 1, /* on the device, or ftpu_train_create fails */
	FTPU_TRAIN_ON_HOST = 2,   /* on the host, matmuls on the device */
};

struct ftpu_train_config {
	size_t n_layers;      /* 1..FTPU_TRAIN_MAX_LAYERS */
	const size_t *widths; /* n_layers + 1 widths, each >= 1 */
	size_t batch;         /* rows a step takes at most (a step may take fewer) */
	enum ftpu_optimizer optimizer;
	float learning_rate;
	float beta1, beta2, epsilon; /* Adam; Keras: 0.9, 0.999, 1e-7 */
	float momentum;              /* SGD */
	enum ftpu_train_input input; /* 0: fp32 */
	enum ftpu_train_placement placement; /* 0: FTPU_TRAIN_AUTO */
};

typedef struct ftpu_trainer ftpu_trainer;

/* What the last step (or ftpu_train_logits) cost, from the device's
 * counters, summed over its programs. */
struct ftpu_train_stats {
	uint64_t steps;               /* optimizer steps taken (Adam's t) */
	uint64_t cycles, macs, instructions;
	uint64_t bytes_in, bytes_out; /* link bytes, framing included */
	double utilization;           /* macs / (rows * cols * cycles) */
	double compile_seconds;       /* building the programs (a step's halves:
				       * on first use) */
	double host_seconds;          /* wall time of the last call */
	/* where the state is: FTPU_TRAIN_ON_DEVICE or FTPU_TRAIN_ON_HOST */
	enum ftpu_train_placement placement;
};

/*
 * Compiles the step for dev and claims the device's memories: weights and
 * biases start at zero (write them with ftpu_train_write), optimizer slots
 * at zero, steps at 0. FTPU_ERR_INVALID for NULL or zero sizes, more than
 * FTPU_TRAIN_MAX_LAYERS layers, a learning rate or Adam constant out of
 * range. With FTPU_TRAIN_ON_DEVICE: FTPU_ERR_UNSUPPORTED for a device
 * without the vector unit, FTPU_ERR_SHAPE for a model or batch its
 * memories cannot hold, with the numbers ("batch 4096 needs 66560 UB
 * vectors, the device has 16384") in ftpu_last_error(dev); FTPU_TRAIN_AUTO
 * then places the trainer on the host instead (ftpu_train_stats says
 * where it is).
 *
 * A trainer on the device owns it until ftpu_train_destroy: running
 * anything else on it (ftpu_gemm, ftpu_run, ftpu_reset) overwrites the
 * training state, and the trainer's next call fails with FTPU_ERR_STATE.
 * One on the host leaves nothing on the device between calls.
 */
int ftpu_train_create(ftpu_device *dev, const struct ftpu_train_config *cfg,
		      ftpu_trainer **out);
/* NULL is a no-op; the device stays open. */
void ftpu_train_destroy(ftpu_trainer *t);

/*
 * One step on rows (1..batch) samples: x is rows x widths[0] fp32,
 * row-major (sent as bf16), labels rows class numbers below
 * widths[n_layers]. *loss (may be NULL) receives the mean softmax
 * cross-entropy of the batch before the update. FTPU_ERR_INVALID for a bad
 * label or size.
 */
int ftpu_train_step(ftpu_trainer *t, const float *x, const uint8_t *labels, size_t rows,
		    float *loss);

/* The logits (rows x widths[n_layers] fp32) of rows (1..batch) samples
 * with the current weights; nothing is updated. */
int ftpu_train_logits(ftpu_trainer *t, const float *x, size_t rows, float *logits);

/* The same for a trainer created with FTPU_TRAIN_INPUT_U8: x is rows x
 * widths[0] bytes p, the network sees p / 255. Each kind of trainer takes
 * only its own calls (FTPU_ERR_INVALID otherwise). */
int ftpu_train_step_u8(ftpu_trainer *t, const uint8_t *x, const uint8_t *labels, size_t rows,
		       float *loss);
int ftpu_train_logits_u8(ftpu_trainer *t, const uint8_t *x, size_t rows, float *logits);

/*
 * The training state as flat fp32 arrays of ftpu_train_size() values:
 * layer by layer, W_l (widths[l-1] x widths[l], row-major) then b_l.
 * FTPU_TRAIN_PARAMS are the weights and biases; FTPU_TRAIN_SLOT1 is
 * Adam's m or SGD's momentum, FTPU_TRAIN_SLOT2 Adam's v (zeros for SGD).
 */
enum ftpu_train_part { FTPU_TRAIN_PARAMS = 0, FTPU_TRAIN_SLOT1 = 1, FTPU_TRAIN_SLOT2 = 2 };
size_t ftpu_train_size(const ftpu_trainer *t);
int ftpu_train_read(ftpu_trainer *t, enum ftpu_train_part part, float *values);
int ftpu_train_write(ftpu_trainer *t, enum ftpu_train_part part, const float *values);
/* Adam's step count t (bias correction), to resume; set it with the slots. */
int ftpu_train_set_steps(ftpu_trainer *t, uint64_t steps);
int ftpu_train_stats(const ftpu_trainer *t, struct ftpu_train_stats *stats);

/*
 * A step in two halves, for data parallelism (ftpu_replicas below, or MPI
 * in the caller: docs/training.md, Replicas). ftpu_train_gradient runs the
 * forward and backward passes on rows (1..batch) samples and updates
 * nothing: the loss gradient is (softmax - onehot) / divisor (divisor: the
 * rows of the global batch, >= rows), grad (ftpu_train_size() values, the
 * flat layout of ftpu_train_read) receives the gradient of this part of
 * the batch and *loss_sum (may be NULL) the sum of its rows' losses.
 * ftpu_train_apply runs the optimizer's update with grad (the replicas'
 * gradients summed, ftpu_train_reduce) as Adam step steps + 1. A step is
 * gradient then apply with divisor = rows: the same bits as
 * ftpu_train_step.
 */
int ftpu_train_gradient(ftpu_trainer *t, const float *x, const uint8_t *labels, size_t rows,
			size_t divisor, float *grad, double *loss_sum);
int ftpu_train_gradient_u8(ftpu_trainer *t, const uint8_t *x, const uint8_t *labels,
			   size_t rows, size_t divisor, float *grad, double *loss_sum);
int ftpu_train_apply(ftpu_trainer *t, const float *grad);
/* sum[i] = grads[0][i] + grads[1][i] + ... + grads[n - 1][i], added in that
 * order in fp32 (round to nearest even): the replicas' one reduction
 * order, so every replica, and every run, applies the same bits. */
void ftpu_train_reduce(float *sum, const float *const *grads, size_t n, size_t size);

/*
 * Replicas: one trainer on each of n devices (any URIs: sim, ref, boards;
 * a device with the vector unit keeps its state, others keep it on the
 * host), trained as one (docs/training.md, Replicas). cfg->batch is the
 * global batch; a step's rows are split in order, replica i taking
 * rows / n (+1 for i < rows % n) consecutive rows; each computes its
 * gradient on its own thread (ftpu_train_gradient with the global rows as
 * divisor), ftpu_train_reduce sums them in replica order, and every
 * replica applies the sum, so the weights stay the same on every device.
 */
typedef struct ftpu_replicas ftpu_replicas;
int ftpu_replicas_open(const char *const *uris, size_t n, const struct ftpu_train_config *cfg,
		       ftpu_replicas **out);
/*
 * How the replicas share the work. SPLIT_BATCH is ftpu_replicas_open's,
 * above. SPLIT_UNITS (a model with one hidden layer, every replica on a
 * device with the vector unit) gives replica i the hidden units of its
 * share (widths[1] split as ftpu_replicas_share splits rows, in whole
 * chunks of the first device's array where there are enough): their
 * columns of W1 and b1, their rows of W2, and the output bias, which
 * every replica keeps. Every replica takes the whole batch; the logits
 * are the replicas' parts summed in replica order in fp32 (the first
 * part carries the bias), the host takes the loss, and every replica
 * updates its units with the same loss gradient. Only the logits cross
 * the link (docs/training.md, Replicas). ftpu_replicas_read and _write
 * then gather and scatter the model's flat state; ftpu_replicas_check
 * compares the output bias; ftpu_replicas_trainer(i) is the trainer of
 * replica i's share (a smaller model).
 */
enum ftpu_replicas_split { FTPU_REPLICAS_SPLIT_BATCH = 0, FTPU_REPLICAS_SPLIT_UNITS = 1 };
int ftpu_replicas_open_split(const char *const *uris, size_t n,
			     const struct ftpu_train_config *cfg, enum ftpu_replicas_split split,
			     ftpu_replicas **out);
void ftpu_replicas_close(ftpu_replicas *r);
size_t ftpu_replicas_count(const ftpu_replicas *r);
/* Replica i's device and trainer (owned by r), for stats and INFO. */
ftpu_device *ftpu_replicas_device(ftpu_replicas *r, size_t i);
ftpu_trainer *ftpu_replicas_trainer(ftpu_replicas *r, size_t i);
/* Replica i's rows of a batch of rows split over n: *count = rows / n (+1
 * for i < rows % n) from *first, in order (for a caller splitting batches
 * as ftpu_replicas does, over MPI say). */
void ftpu_replicas_share(size_t rows, size_t n, size_t i, size_t *first, size_t *count);
/* ftpu_train_step(_u8) over the replicas; *loss the global batch's mean. */
int ftpu_replicas_step(ftpu_replicas *r, const float *x, const uint8_t *labels, size_t rows,
		       float *loss);
int ftpu_replicas_step_u8(ftpu_replicas *r, const uint8_t *x, const uint8_t *labels,
			  size_t rows, float *loss);
/* Replica i's device counters over the last step (its gradient and its
 * apply; split by units, its passes before and after the loss) or logits
 * call; steps, placement and compile time its trainer's. */
int ftpu_replicas_stats(const ftpu_replicas *r, size_t i, struct ftpu_train_stats *stats);
/* Logits of rows (1..batch) samples, split as a step's rows. */
int ftpu_replicas_logits(ftpu_replicas *r, const float *x, size_t rows, float *logits);
int ftpu_replicas_logits_u8(ftpu_replicas *r, const uint8_t *x, size_t rows, float *logits);
/* Writes go to every replica; reads come from replica 0 (split by units:
 * from every replica, each its units). */
int ftpu_replicas_read(ftpu_replicas *r, enum ftpu_train_part part, float *values);
int ftpu_replicas_write(ftpu_replicas *r, enum ftpu_train_part part, const float *values);
int ftpu_replicas_set_steps(ftpu_replicas *r, uint64_t steps);
/* Reads every replica's weights and slots and compares them (split by
 * units: the output bias's) with replica 0's: FTPU_ERR_STATE, naming the
 * replica and the first value that differs, when they have drifted apart.
 * With FTPU_REPLICAS_CHECK=1 in the environment every step ends with it (a
 * debug mode: it reads the whole state over every link). */
int ftpu_replicas_check(ftpu_replicas *r);

/* ---- files ---------------------------------------------------------------------- */

/*
 * Opens path for reading as every reader of files here does (program
 * files, firmware images for `ftpu fw load`, the demo's datasets and
 * weights): a regular file only. A FIFO, device node, directory or socket
 * is FTPU_ERR_CORRUPT, refused without blocking on it or reading from it.
 * Returns a descriptor (blocking, close-on-exec; the caller closes it), or
 * a negative status: FTPU_ERR_NOT_FOUND (no such file), FTPU_ERR_IO (other
 * errors: permission, ...), FTPU_ERR_INVALID (NULL or empty path); the
 * reason, naming path, in ftpu_last_error(NULL) for the calling thread.
 */
int ftpu_open_file(const char *path);

#ifdef __cplusplus
}
#endif
#endif /* FTPU_H */
