/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_replay.h - replaying a fuzz target's committed inputs in a test:
 * every regular file of a directory through the target's checker
 * (fuzz_<target>_one). Used by tests/fuzz/test_fuzz_replay.c and
 * tests/firmware/test_firmware.c. Header-only.
 */
#ifndef FUZZ_REPLAY_H
#define FUZZ_REPLAY_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The file being replayed, for a failing check's message. */
static char fuzz_replay_path[1024];

/*
 * Runs one() on every regular file in dir (sorted by name). Returns the
 * number of files, or -1 when dir cannot be opened or a file not read.
 */
static int fuzz_replay_dir(const char *dir, int (*one)(const uint8_t *, size_t))
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort), files = 0;

	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		struct stat st;
		snprintf(fuzz_replay_path, sizeof(fuzz_replay_path), "%s/%s", dir,
			 names[i]->d_name);
		if (stat(fuzz_replay_path, &st) || !S_ISREG(st.st_mode)) {
			free(names[i]);
			continue;
		}
		FILE *f = fopen(fuzz_replay_path, "rb");
		uint8_t *buf = malloc((size_t)st.st_size + 1);
		size_t got = f && buf ? fread(buf, 1, (size_t)st.st_size, f) : 0;
		if (f)
			fclose(f);
		if (!buf || got != (size_t)st.st_size) {
			free(buf);
			files = -1;
			free(names[i]);
			continue;
		}
		one(buf, got);
		free(buf);
		if (files >= 0)
			files++;
		free(names[i]);
	}
	free(names);
	fuzz_replay_path[0] = '\0';
	return files;
}

#endif /* FUZZ_REPLAY_H */
