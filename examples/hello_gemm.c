/* hello_gemm.c - the README's example: C = A * B on the simulated device. */
#include <stdio.h>
#include <ftpu.h>

int main(void)
{
	static float a[64 * 784], b[784 * 128], c[64 * 128];
	for (int i = 0; i < 64 * 784; i++) a[i] = (float)(i % 7) - 3;
	for (int i = 0; i < 784 * 128; i++) b[i] = (float)(i % 5) / 4;
	ftpu_device *dev;
	int ret = ftpu_open("sim", &dev);
	if (!ret)
		ret = ftpu_gemm(dev, FTPU_NO_TRANS, FTPU_NO_TRANS, 64, 128, 784,
				1.0f, a, 784, b, 128, 0.0f, c, 128);
	struct ftpu_stats st;
	if (ret || (ret = ftpu_last_stats(dev, &st)))
		return fprintf(stderr, "ftpu: %s: %s\n", ftpu_strerror(ret), ftpu_last_error(dev)), 1;
	printf("c[0][0] = %g, %llu cycles, array utilization %.1f%% (the link allows at most "
	       "%.1f%%: %.0f%% of that roofline reached)\n", c[0], (unsigned long long)st.cycles,
	       100 * st.utilization, 100 * st.roofline, 100 * st.utilization / st.roofline);
	return ftpu_close(dev);
}
