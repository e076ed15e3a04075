/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plot.h - the training log (one row per logging interval and per epoch)
 * as a CSV file and as an SVG chart of loss and accuracy curves.
 */
#ifndef FM_PLOT_H
#define FM_PLOT_H

#include <stddef.h>

/*
 * A row: an interval row (accuracy < 0) has the mean training loss of the
 * steps since the previous row (the last interval of an epoch ends with
 * it); an epoch row (accuracy >= 0) follows it with the mean training loss
 * of the epoch and the test accuracy after it.
 */
struct log_row {
	unsigned epoch; /* 1-based */
	size_t step;	/* optimizer steps so far, all epochs */
	double x;	/* fractional epochs done at the row */
	double loss;
	double accuracy;    /* < 0: none */
	double seconds;	    /* wall time since training began */
	double utilization; /* of the rows' GEMMs; < 0: none (cpu) */
};

/* Writes rows as CSV with the header
 * "epoch,step,loss,accuracy,seconds,utilization" (empty fields for none).
 * 0, or -1 with one line in err. */
int log_write_csv(const char *path, const struct log_row *rows, size_t n,
		  char *err, size_t errlen);

/* An SVG chart: training loss over epochs (intervals as a line, epoch
 * means as dots) beside test accuracy per epoch. 0, or -1 with err. */
int plot_write_svg(const char *path, const char *title,
		   const struct log_row *rows, size_t n, double epochs,
		   char *err, size_t errlen);

#endif /* FM_PLOT_H */
