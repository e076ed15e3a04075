/* SPDX-License-Identifier: Apache-2.0 */
/* plot.c - the training log as CSV and as a hand-written SVG (plot.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "plot.h"

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int finish(FILE *f, const char *path, char *err, size_t errlen)
{
	bool bad = ferror(f);
	if (fclose(f) != 0 || bad)
		return fail(err, errlen, "%s: write failed: %s", path,
			    strerror(errno));
	return 0;
}

int log_write_csv(const char *path, const struct log_row *rows, size_t n,
		  char *err, size_t errlen)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return fail(err, errlen, "%s: cannot create: %s", path,
			    strerror(errno));
	fprintf(f, "epoch,step,loss,accuracy,seconds,utilization\n");
	for (size_t i = 0; i < n; i++) {
		const struct log_row *r = &rows[i];
		fprintf(f, "%u,%zu,%.6f,", r->epoch, r->step, r->loss);
		if (r->accuracy >= 0)
			fprintf(f, "%.4f", r->accuracy);
		fprintf(f, ",%.3f,", r->seconds);
		if (r->utilization >= 0)
			fprintf(f, "%.4f", r->utilization);
		fputc('\n', f);
	}
	return finish(f, path, err, errlen);
}

/* ---- SVG ----------------------------------------------------------------- */

/* A "nice" tick step (1, 2 or 5 times a power of ten) for about n ticks. */
static double nice_step(double span, int n)
{
	double raw = span / n, p = pow(10.0, floor(log10(raw)));
	double f = raw / p;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

struct panel {
	double x0, y0, w, h;	       /* plot area in pixels */
	double xmin, xmax, ymin, ymax; /* data range */
};

static double px(const struct panel *p, double x)
{
	return p->x0 + (x - p->xmin) / (p->xmax - p->xmin) * p->w;
}

static double py(const struct panel *p, double y)
{
	return p->y0 + p->h - (y - p->ymin) / (p->ymax - p->ymin) * p->h;
}

/* Frame, grid, ticks and labels of a panel. */
static void axes(FILE *f, const struct panel *p, const char *title,
		 const char *ylabel, bool percent)
{
	double xs = nice_step(p->xmax - p->xmin, 5);
	double ys = nice_step(p->ymax - p->ymin, 5);

	fprintf(f,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		"fill=\"#fff\" stroke=\"#888\"/>\n",
		p->x0, p->y0, p->w, p->h);
	for (double x = ceil(p->xmin / xs) * xs; x <= p->xmax + xs * 1e-6;
	     x += xs) {
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"#eee\"/>\n",
			px(p, x), p->y0, px(p, x), p->y0 + p->h);
		fprintf(f,
			"<text x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"middle\">%g</text>\n",
			px(p, x), p->y0 + p->h + 16,
			fabs(x) < xs * 1e-6 ? 0.0 : x);
	}
	for (double y = ceil(p->ymin / ys) * ys; y <= p->ymax + ys * 1e-6;
	     y += ys) {
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"#eee\"/>\n",
			p->x0, py(p, y), p->x0 + p->w, py(p, y));
		if (percent)
			fprintf(f,
				"<text x=\"%.1f\" y=\"%.1f\" "
				"text-anchor=\"end\">%g%%</text>\n",
				p->x0 - 6, py(p, y) + 4, round(y * 1000) / 10);
		else
			fprintf(f,
				"<text x=\"%.1f\" y=\"%.1f\" "
				"text-anchor=\"end\">%g</text>\n",
				p->x0 - 6, py(p, y) + 4,
				fabs(y) < ys * 1e-6 ? 0.0 : y);
	}
	fprintf(f,
		"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
		"font-weight=\"bold\">%s</text>\n",
		p->x0 + p->w / 2, p->y0 - 10, title);
	fprintf(f,
		"<text x=\"%.1f\" y=\"%.1f\" "
		"text-anchor=\"middle\">epoch</text>\n",
		p->x0 + p->w / 2, p->y0 + p->h + 34);
	fprintf(f,
		"<text transform=\"translate(%.1f %.1f) rotate(-90)\" "
		"text-anchor=\"middle\">%s</text>\n",
		p->x0 - 46, p->y0 + p->h / 2, ylabel);
}

/* Writes text with &, < and > escaped. */
static void put_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else
			fputc(*s, f);
	}
}

int plot_write_svg(const char *path, const char *title,
		   const struct log_row *rows, size_t n, double epochs,
		   char *err, size_t errlen)
{
	const double W = 960, H = 400;
	double lmax = 0, amin = 1;
	size_t n_acc = 0;

	for (size_t i = 0; i < n; i++) {
		if (isfinite(rows[i].loss) && rows[i].loss > lmax)
			lmax = rows[i].loss;
		if (rows[i].accuracy >= 0) {
			n_acc++;
			if (rows[i].accuracy < amin)
				amin = rows[i].accuracy;
		}
	}
	if (lmax <= 0)
		lmax = 1;
	if (epochs <= 0)
		epochs = 1;
	struct panel loss = {80, 60, 360, 270, 0, epochs, 0, 0};
	loss.ymax = ceil(lmax / nice_step(lmax, 5)) * nice_step(lmax, 5);
	struct panel acc = {560, 60, 360, 270, 0, epochs, 0, 1};
	acc.ymin = floor((amin - 0.05) * 10) / 10;
	if (acc.ymin < 0)
		acc.ymin = 0;
	if (acc.ymin > 0.9)
		acc.ymin = 0.9;

	FILE *f = fopen(path, "w");
	if (!f)
		return fail(err, errlen, "%s: cannot create: %s", path,
			    strerror(errno));
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" "
		"height=\"%g\" viewBox=\"0 0 %g %g\" "
		"font-family=\"sans-serif\" "
		"font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fafafa\"/>\n",
		W, H, W, H);
	fprintf(f,
		"<text x=\"%g\" y=\"24\" text-anchor=\"middle\" "
		"font-size=\"15\">",
		W / 2);
	put_escaped(f, title);
	fprintf(f, "</text>\n");

	axes(f, &loss, "training loss", "cross-entropy", false);
	/* interval losses as a line */
	fprintf(f, "<polyline fill=\"none\" stroke=\"#1f77b4\" "
		   "stroke-width=\"2\" points=\"");
	for (size_t i = 0; i < n; i++)
		if (rows[i].accuracy < 0 && isfinite(rows[i].loss))
			fprintf(f, "%.1f,%.1f ", px(&loss, rows[i].x),
				py(&loss, rows[i].loss));
	fprintf(f, "\"/>\n");
	/* epoch means as dots in the middle of their epochs */
	for (size_t i = 0; i < n; i++)
		if (rows[i].accuracy >= 0 && isfinite(rows[i].loss))
			fprintf(f,
				"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
				"fill=\"#d62728\"/>\n",
				px(&loss, rows[i].x - 0.5),
				py(&loss, rows[i].loss));
	fprintf(f,
		"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"#1f77b4\" stroke-width=\"2\"/>"
		"<text x=\"%.1f\" y=\"%.1f\">interval mean</text>\n"
		"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#d62728\"/>"
		"<text x=\"%.1f\" y=\"%.1f\">epoch mean</text>\n",
		loss.x0 + loss.w - 150, loss.y0 + 14, loss.x0 + loss.w - 130,
		loss.y0 + 14, loss.x0 + loss.w - 124, loss.y0 + 18,
		loss.x0 + loss.w - 140, loss.y0 + 32, loss.x0 + loss.w - 124,
		loss.y0 + 36);

	axes(f, &acc, "test accuracy", "accuracy", true);
	fprintf(f, "<polyline fill=\"none\" stroke=\"#ff7f0e\" "
		   "stroke-width=\"2\" points=\"");
	for (size_t i = 0; i < n; i++)
		if (rows[i].accuracy >= 0)
			fprintf(f, "%.1f,%.1f ", px(&acc, rows[i].x),
				py(&acc, rows[i].accuracy));
	fprintf(f, "\"/>\n");
	for (size_t i = 0; i < n; i++)
		if (rows[i].accuracy >= 0)
			fprintf(f,
				"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
				"fill=\"#ff7f0e\"/>\n"
				"<text x=\"%.1f\" y=\"%.1f\" "
				"text-anchor=\"middle\">"
				"%.1f%%</text>\n",
				px(&acc, rows[i].x), py(&acc, rows[i].accuracy),
				px(&acc, rows[i].x) -
					(rows[i].x >= epochs ? 18 : 0),
				py(&acc, rows[i].accuracy) - 10,
				100 * rows[i].accuracy);
	if (!n_acc)
		fprintf(f,
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
			"fill=\"#888\">no evaluation yet</text>\n",
			acc.x0 + acc.w / 2, acc.y0 + acc.h / 2);
	fprintf(f, "</svg>\n");
	return finish(f, path, err, errlen);
}
