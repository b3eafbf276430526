/* Files a submission controls: links, FIFOs, devices and folders are refused by name, a file
 * over the limit is refused without being read, a folder is copied faithfully or refused. */
#define _GNU_SOURCE /* mkfifo, symlink */
#include "util.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_dir[64];

static void scratch_init(void)
{
    strcpy(g_dir, "/tmp/tilelab-files-XXXXXX");
    cr_assert_not_null(mkdtemp(g_dir), "mkdtemp: %s", strerror(errno));
}

static void scratch_fini(void)
{
    files_remove_tree(g_dir);
}

static const char *at(const char *name)
{
    static char path[4][512];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "%s/%s", g_dir, name);
    return p;
}

static void write_file(const char *name, const char *text)
{
    FILE *f = fopen(at(name), "wb");
    cr_assert_not_null(f, "%s: %s", name, strerror(errno));
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
}

static void make_dir(const char *name)
{
    cr_assert_eq(mkdir(at(name), 0700), 0, "%s: %s", name, strerror(errno));
}

/* Asserts that reading `path` is refused with a message holding `path` and `why`. */
static void assert_read_refused(const char *path, const char *why)
{
    tl_error err = {{0}};
    size_t len = 77;
    char *text = files_read_untrusted(path, 1 << 20, &len, &err);
    cr_assert_null(text, "%s was read", path);
    cr_assert_not_null(strstr(err.msg, path), "the message does not name the path: %s", err.msg);
    cr_assert_not_null(strstr(err.msg, why), "expected \"%s\": %s", why, err.msg);
}

TestSuite(read_untrusted, .init = scratch_init, .fini = scratch_fini);

Test(read_untrusted, reads_a_regular_file_whole)
{
    write_file("a.cu", "__global__ void k() {}\n");
    tl_error err = {{0}};
    size_t len = 0;
    char *text = files_read_untrusted(at("a.cu"), 1 << 20, &len, &err);
    cr_assert_not_null(text, "%s", err.msg);
    cr_assert_str_eq(text, "__global__ void k() {}\n");
    cr_assert_eq(len, strlen(text));
    free(text);
}

Test(read_untrusted, refuses_a_symbolic_link_to_a_file)
{
    write_file("real.cu", "x");
    cr_assert_eq(symlink(at("real.cu"), at("link.cu")), 0);
    assert_read_refused(at("link.cu"), "a symbolic link");
}

Test(read_untrusted, refuses_a_symbolic_link_to_a_folder)
{
    make_dir("real");
    cr_assert_eq(symlink(at("real"), at("link")), 0);
    assert_read_refused(at("link"), "a symbolic link");
    tl_error err = {{0}};
    cr_assert_eq(files_copy_tree_untrusted(at("link"), at("copy"), 1 << 20, 64, &err), -1);
    cr_assert_not_null(strstr(err.msg, "a symbolic link"), "%s", err.msg);
    struct stat st;
    cr_assert_neq(stat(at("copy"), &st), 0, "a link was followed into a copy");
}

Test(read_untrusted, refuses_a_fifo_without_waiting_for_a_writer, .timeout = 10)
{
    cr_assert_eq(mkfifo(at("pipe.cu"), 0600), 0);
    assert_read_refused(at("pipe.cu"), "a FIFO");
}

Test(read_untrusted, refuses_devices_and_folders)
{
    assert_read_refused("/dev/zero", "a device");
    make_dir("sub");
    assert_read_refused(at("sub"), "a folder");
}

Test(read_untrusted, refuses_a_file_over_the_limit_without_reading_it, .timeout = 10)
{
    /* 64 GiB, sparse: reading it, or allocating room for it, would not end within the timeout. */
    int fd = open(at("huge.cu"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    cr_assert_geq(fd, 0);
    cr_assert_eq(ftruncate(fd, (off_t)64 << 30), 0, "ftruncate: %s", strerror(errno));
    close(fd);
    assert_read_refused(at("huge.cu"), "68719476736 bytes, more than the 1048576 allowed");
    /* The limit itself is allowed, one byte more is not. */
    write_file("ten.cu", "0123456789");
    tl_error err = {{0}};
    char *text = files_read_untrusted(at("ten.cu"), 10, NULL, &err);
    cr_assert_not_null(text, "%s", err.msg);
    free(text);
    cr_assert_null(files_read_untrusted(at("ten.cu"), 9, NULL, &err));
    cr_assert_not_null(strstr(err.msg, "10 bytes"), "%s", err.msg);
}

Test(read_untrusted, shows_a_hostile_name_inertly)
{
    write_file("real.cu", "x");
    cr_assert_eq(symlink(at("real.cu"), at("\x1b[2Jlink\n.cu")), 0);
    tl_error err = {{0}};
    cr_assert_null(files_read_untrusted(at("\x1b[2Jlink\n.cu"), 100, NULL, &err));
    cr_assert_null(strchr(err.msg, 0x1b), "an escape sequence reached the message");
    cr_assert_null(strchr(err.msg, '\n'));
    cr_assert_not_null(strstr(err.msg, "\\x1b[2Jlink\\n.cu: refused: a symbolic link"), "%s",
                       err.msg);
}

/* ---- copying a submission folder ----------------------------------------------------------- */
TestSuite(copy_tree_untrusted, .init = scratch_init, .fini = scratch_fini);

static void assert_file(const char *name, const char *want, mode_t mode)
{
    struct stat st;
    cr_assert_eq(lstat(at(name), &st), 0, "%s missing", name);
    cr_assert(S_ISREG(st.st_mode), "%s is not a regular file", name);
    cr_assert_eq(st.st_mode & 07777, mode, "%s has mode %o", name, st.st_mode & 07777);
    char *text = files_read(at(name), NULL);
    cr_assert_not_null(text);
    cr_assert_str_eq(text, want, "%s", name);
    free(text);
}

Test(copy_tree_untrusted, copies_files_and_subfolders_faithfully)
{
    make_dir("sub");
    make_dir("sub/inc");
    write_file("sub/template.cu", "#include \"inc/tile.h\"\nint main() {}\n");
    write_file("sub/notes.txt", "");
    write_file("sub/inc/tile.h", "#define TILE 16\n");
    write_file("sub/.git", "hidden");
    chmod(at("sub/template.cu"), 0700);
    /* A strict umask must not change the modes the copy promises. */
    mode_t old = umask(077);
    tl_error err = {{0}};
    int rc = files_copy_tree_untrusted(at("sub"), at("copy"), 1 << 20, 64, &err);
    umask(old);
    cr_assert_eq(rc, 0, "%s", err.msg);
    assert_file("copy/template.cu", "#include \"inc/tile.h\"\nint main() {}\n", 0644);
    assert_file("copy/notes.txt", "", 0644);
    assert_file("copy/inc/tile.h", "#define TILE 16\n", 0644);
    struct stat st;
    cr_assert_eq(stat(at("copy"), &st), 0);
    cr_assert_eq(st.st_mode & 07777, 0755);
    cr_assert_eq(stat(at("copy/inc"), &st), 0);
    cr_assert_eq(st.st_mode & 07777, 0755);
    cr_assert_neq(lstat(at("copy/.git"), &st), 0, "a hidden file was copied");
}

Test(copy_tree_untrusted, refuses_a_link_deep_inside_and_names_it)
{
    make_dir("sub");
    make_dir("sub/a");
    make_dir("sub/a/b");
    write_file("sub/template.cu", "x");
    cr_assert_eq(symlink("/etc/passwd", at("sub/a/b/answers.txt")), 0);
    tl_error err = {{0}};
    cr_assert_eq(files_copy_tree_untrusted(at("sub"), at("copy"), 1 << 20, 64, &err), -1);
    cr_assert_not_null(strstr(err.msg, "sub/a/b/answers.txt: refused: a symbolic link"), "%s",
                       err.msg);
    struct stat st;
    cr_assert_neq(lstat(at("copy/a/b/answers.txt"), &st), 0);
}

Test(copy_tree_untrusted, refuses_a_fifo_inside_without_waiting, .timeout = 10)
{
    make_dir("sub");
    cr_assert_eq(mkfifo(at("sub/pipe"), 0600), 0);
    tl_error err = {{0}};
    cr_assert_eq(files_copy_tree_untrusted(at("sub"), at("copy"), 1 << 20, 64, &err), -1);
    cr_assert_not_null(strstr(err.msg, "sub/pipe: refused: a FIFO"), "%s", err.msg);
}

Test(copy_tree_untrusted, refuses_more_bytes_or_files_than_allowed)
{
    make_dir("sub");
    write_file("sub/a.cu", "12345");
    write_file("sub/b.cu", "67890");
    tl_error err = {{0}};
    cr_assert_eq(files_copy_tree_untrusted(at("sub"), at("c1"), 10, 64, &err), 0, "%s", err.msg);
    cr_assert_eq(files_copy_tree_untrusted(at("sub"), at("c2"), 9, 64, &err), -1);
    cr_assert_not_null(strstr(err.msg, "more than allowed"), "%s", err.msg);
    cr_assert_eq(files_copy_tree_untrusted(at("sub"), at("c3"), 100, 2, &err), 0, "%s", err.msg);
    cr_assert_eq(files_copy_tree_untrusted(at("sub"), at("c4"), 100, 1, &err), -1);
    cr_assert_not_null(strstr(err.msg, "more files and folders"), "%s", err.msg);
}

Test(copy_tree_untrusted, refuses_folders_nested_more_than_four_deep)
{
    make_dir("sub");
    make_dir("sub/1");
    make_dir("sub/1/2");
    make_dir("sub/1/2/3");
    make_dir("sub/1/2/3/4");
    write_file("sub/1/2/3/4/deep.h", "ok");
    tl_error err = {{0}};
    cr_assert_eq(files_copy_tree_untrusted(at("sub"), at("c1"), 100, 64, &err), 0, "%s", err.msg);
    assert_file("c1/1/2/3/4/deep.h", "ok", 0644);
    make_dir("sub/1/2/3/4/5");
    cr_assert_eq(files_copy_tree_untrusted(at("sub"), at("c2"), 100, 64, &err), -1);
    cr_assert_not_null(strstr(err.msg, "sub/1/2/3/4/5: refused: folders nested more than 4"),
                       "%s", err.msg);
}

/* ---- writing a file atomically ------------------------------------------------------------ */
TestSuite(write_atomic, .init = scratch_init, .fini = scratch_fini);

/* The old file is replaced by a new one (a rename: a new inode), nothing else is left beside
 * it; a missing folder fails with the path and the step, leaving nothing. */
Test(write_atomic, replaces_whole_and_leaves_no_temporary)
{
    tl_error err = {{0}};
    write_file("page.html", "an old and rather longer page");
    struct stat before, after;
    cr_assert_eq(stat(at("page.html"), &before), 0);
    cr_assert_eq(tl_write_file_atomic(at("page.html"), "new", 3, &err), 0, "%s", err.msg);
    cr_assert_eq(stat(at("page.html"), &after), 0);
    cr_expect_neq(before.st_ino, after.st_ino);
    size_t len = 0;
    char *text = files_read(at("page.html"), &len);
    cr_assert_str_eq(text, "new");
    free(text);
    int entries = 0;
    DIR *d = opendir(g_dir);
    for (struct dirent *e; (e = readdir(d));)
        entries += e->d_name[0] != '.';
    closedir(d);
    cr_expect_eq(entries, 1, "a temporary file was left behind");
    cr_assert_eq(tl_write_file_atomic(at("none/page.html"), "x", 1, &err), -1);
    cr_expect_not_null(strstr(err.msg, "none/page.html: cannot create a temporary file"), "%s",
                       err.msg);
}

/* The journal's write: the same replacement, with its data synced first; a folder that is not
 * there fails with the path and leaves nothing behind. */
Test(write_atomic, durable_replaces_whole_and_keeps_the_mode)
{
    tl_error err = {{0}};
    write_file("entry.json", "{\"old\": true}");
    cr_assert_eq(chmod(at("entry.json"), 0640), 0);
    cr_assert_eq(tl_write_file_durable(at("entry.json"), "{}", 2, &err), 0, "%s", err.msg);
    size_t len = 0;
    char *text = files_read(at("entry.json"), &len);
    cr_assert_str_eq(text, "{}");
    free(text);
    struct stat st;
    cr_assert_eq(stat(at("entry.json"), &st), 0);
    cr_expect_eq(st.st_mode & 0777, 0640, "the replaced file's mode is kept");
    cr_assert_eq(tl_write_file_durable(at("none/entry.json"), "x", 1, &err), -1);
    cr_expect_not_null(strstr(err.msg, "none/entry.json"), "%s", err.msg);
}

Test(files, make_dirs_creates_the_missing_folders_above)
{
    char base[] = "/tmp/tl-mkdirs-XXXXXX";
    cr_assert_not_null(mkdtemp(base));
    char deep[128], file[160];
    snprintf(deep, sizeof deep, "%s/a/b/c", base);
    cr_assert_eq(files_make_dirs(deep), 0);
    struct stat st;
    cr_assert_eq(stat(deep, &st), 0);
    cr_expect(S_ISDIR(st.st_mode));
    cr_expect_eq(files_make_dirs(deep), 0, "an existing folder is fine");
    /* A file in the way is an error, not a folder. */
    snprintf(file, sizeof file, "%s/a/file", base);
    FILE *f = fopen(file, "w");
    cr_assert_not_null(f);
    fclose(f);
    snprintf(deep, sizeof deep, "%s/a/file/d", base);
    cr_expect_eq(files_make_dirs(deep), -1);
    files_remove_tree(base);
}

/* ---- the hash of a folder (cache and journal keys) ---------------------------------------- */
TestSuite(hash_tree, .init = scratch_init, .fini = scratch_fini);

static uint64_t tree_key(const char *dir, int max_depth)
{
    uint64_t h = TL_HASH_SEED;
    cr_assert_eq(util_hash_tree(&h, at(dir), max_depth, 1 << 20), 0);
    return h;
}

/* Whatever changes what a build would read changes the key; what it does not read does not. */
Test(hash_tree, a_name_a_content_or_a_kind_changes_the_key_a_hidden_file_does_not)
{
    make_dir("s");
    write_file("s/main.cu", "kernel");
    make_dir("s/inc");
    write_file("s/inc/a.h", "#define A 1");
    uint64_t base = tree_key("s", 4);
    cr_assert_eq(tree_key("s", 4), base, "the same folder, another key");
    write_file("s/.hidden", "anything");
    cr_assert_eq(tree_key("s", 4), base, "a name starting with '.' counts");
    write_file("s/inc/a.h", "#define A 2");
    uint64_t content = tree_key("s", 4);
    cr_assert_neq(content, base, "a file's content does not count");
    cr_assert_eq(rename(at("s/inc/a.h"), at("s/inc/b.h")), 0);
    uint64_t name = tree_key("s", 4);
    cr_assert_neq(name, content, "a file's name does not count");
    cr_assert_eq(chmod(at("s/inc/b.h"), 0755), 0);
    cr_assert_neq(tree_key("s", 4), name, "a file's mode does not count");
}

/* A link counts as a link: its target's content is not read, wherever it points. */
Test(hash_tree, a_link_is_not_followed)
{
    make_dir("s");
    write_file("outside", "secret one");
    cr_assert_eq(symlink(at("outside"), at("s/link.h")), 0);
    uint64_t before = tree_key("s", 4);
    write_file("outside", "secret two");
    cr_assert_eq(tree_key("s", 4), before, "the link's target was read");
}

/* Folders deeper than max_depth count by name only; a folder that cannot be read is -1. */
Test(hash_tree, folders_count_down_to_max_depth)
{
    make_dir("s");
    make_dir("s/1");
    make_dir("s/1/2");
    write_file("s/1/2/deep.h", "one");
    uint64_t shallow = tree_key("s", 1), deep = tree_key("s", 2);
    write_file("s/1/2/deep.h", "two");
    cr_assert_eq(tree_key("s", 1), shallow, "a file below max_depth counted");
    cr_assert_neq(tree_key("s", 2), deep, "a file within max_depth did not count");
    uint64_t h = TL_HASH_SEED;
    cr_assert_eq(util_hash_tree(&h, at("none"), 4, 1 << 20), -1);
}
