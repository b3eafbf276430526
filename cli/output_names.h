/* The file names `run --save-outputs` gives each dataset's result. */
#ifndef TILELAB_CLI_OUTPUT_NAMES_H
#define TILELAB_CLI_OUTPUT_NAMES_H

#define OUTPUT_NAME_MAX 256

/* One name per dataset folder (without ".raw"), no two alike: the folder's own name ("3" for
 * "a/b/3" and "a/b/3/"); where folders share it, as many of the folders above as tell them apart,
 * joined by '-' ("02-tiled-0" and "03-arbitrary-0"); where even that fails (the same folder twice),
 * "-2", "-3", ... after the later ones. "." and ".." are named after the folders they are. */
void output_names(const char *const *dirs, int n, char (*names)[OUTPUT_NAME_MAX]);

#endif /* TILELAB_CLI_OUTPUT_NAMES_H */
