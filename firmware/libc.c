/* SPDX-License-Identifier: Apache-2.0 */
/* libc.c - the two functions gcc may call by itself in freestanding code
 * (struct copies and clears), and the two more proto/link.c calls (the soft
 * device, firmware/soc/). Target only: host builds use the C library. */
#include <stddef.h>

void *memset(void *d, int c, size_t n);
void *memcpy(void *restrict d, const void *restrict s, size_t n);
void *memmove(void *d, const void *s, size_t n);
void *memchr(const void *s, int c, size_t n);

void *memset(void *d, int c, size_t n)
{
	unsigned char *p = d;
	while (n--)
		*p++ = (unsigned char)c;
	return d;
}

void *memcpy(void *restrict d, const void *restrict s, size_t n)
{
	unsigned char *p = d;
	const unsigned char *q = s;
	while (n--)
		*p++ = *q++;
	return d;
}

void *memmove(void *d, const void *s, size_t n)
{
	unsigned char *p = d;
	const unsigned char *q = s;
	if (p <= q) /* forward is safe */
		for (size_t i = 0; i < n; i++)
			p[i] = q[i];
	else
		while (n--)
			p[n] = q[n];
	return d;
}

void *memchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;
	for (; n; n--, p++)
		if (*p == (unsigned char)c)
			return (void *)p;
	return 0;
}
