/* The tile store's two candidate layouts measured on the same real tiles (issue 20): one file a tile, written
 * under a temporary name and renamed (what `TileStore` does), against a few large append-only pack files with a
 * length-prefixed record per tile and an index in memory. Built and run by bench/store-layout.sh; prints one FIGURE
 * line per measure.
 *
 *   store-layout INPUT_DIR WORK_DIR SAMPLE_READS
 *
 * INPUT_DIR is a store (or any folder) of tiles; every regular file not starting with '.' is a tile. Cold reads
 * need the caller to drop the page cache between phases: the harness stops and waits for a line on stdin. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PACK_LIMIT (64u << 20)
#define MAGIC 0x4b505354u /* "TSPK" */

typedef struct { char *name; uint8_t *data; uint32_t size; } Tile;
typedef struct { uint32_t pack; uint64_t offset; uint32_t size; } Entry;
typedef struct { uint32_t magic, name_size, data_size, reserved; } Header;

static Tile *tiles; static size_t count, capacity;
static Entry *entries;

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static double cpu(void) {
    struct rusage u; getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
}
static void die(const char *what) { perror(what); exit(1); }

static uint8_t *slurp(const char *path, uint32_t *size) {
    int fd = open(path, O_RDONLY); if (fd < 0) return NULL;
    struct stat st; if (fstat(fd, &st) != 0 || st.st_size <= 0) { close(fd); return NULL; }
    uint8_t *b = malloc(st.st_size); ssize_t n = pread(fd, b, st.st_size, 0); close(fd);
    if (n != st.st_size) { free(b); return NULL; }
    *size = (uint32_t)n; return b;
}

static void load(const char *root, const char *rel) {
    char path[4096]; snprintf(path, sizeof path, "%s/%s", root, rel);
    DIR *d = opendir(path); if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char sub[4096]; snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        if (e->d_type == DT_DIR) { load(root, sub); continue; }
        char full[8192]; snprintf(full, sizeof full, "%s/%s", root, sub);
        uint32_t size; uint8_t *data = slurp(full, &size); if (!data) continue;
        if (count == capacity) { capacity = capacity ? capacity * 2 : 4096; tiles = realloc(tiles, capacity * sizeof *tiles); }
        tiles[count++] = (Tile){strdup(sub), data, size};
    }
    closedir(d);
}

static void make_parents(char *path) {
    for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) { *p = 0; mkdir(path, 0755); *p = '/'; }
}

/* One file a tile: open O_EXCL a temporary name, write, close, rename into place. */
static void write_files(const char *dir) {
    char tmp[8192], final[8192];
    for (size_t i = 0; i < count; i++) {
        snprintf(final, sizeof final, "%s/%s", dir, tiles[i].name);
        char *slash = strrchr(final, '/'); *slash = 0;
        snprintf(tmp, sizeof tmp, "%s/.tmp-%zu", final, i); *slash = '/';
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0 && errno == ENOENT) { make_parents(tmp); fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644); }
        if (fd < 0) die("open");
        if (write(fd, tiles[i].data, tiles[i].size) != (ssize_t)tiles[i].size) die("write");
        close(fd);
        if (rename(tmp, final) != 0) die("rename");
    }
}

/* Packs: records appended with one pwrite each (header, name, data), a new pack past PACK_LIMIT. */
static uint32_t write_packs(const char *dir) {
    uint32_t pack = 0; uint64_t offset = 0; int fd = -1; char path[4096];
    for (size_t i = 0; i < count; i++) {
        if (fd < 0 || offset >= PACK_LIMIT) {
            if (fd >= 0) close(fd);
            snprintf(path, sizeof path, "%s/pack-%04u", dir, fd < 0 ? pack : ++pack);
            fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644); if (fd < 0) die("open pack"); offset = 0;
        }
        uint32_t name_size = (uint32_t)strlen(tiles[i].name);
        size_t total = sizeof(Header) + name_size + tiles[i].size;
        uint8_t *record = malloc(total);
        Header h = {MAGIC, name_size, tiles[i].size, 0};
        memcpy(record + sizeof h, tiles[i].name, name_size); memcpy(record + sizeof h + name_size, tiles[i].data, tiles[i].size);
        memcpy(record, &h, sizeof h);
        if (pwrite(fd, record, total, offset) != (ssize_t)total) die("pwrite");
        entries[i] = (Entry){pack, offset + sizeof h + name_size, tiles[i].size};
        offset += total; free(record);
    }
    if (fd >= 0) close(fd);
    return pack + 1;
}

/* Restart: the header of every record read back (one pread each), as a restart must to rebuild the index; a
 * header that is not one, or a record running past the end, ends the pack there (a torn tail). Tile bytes are
 * checked when read, by their format's end marker, as the one-file store checks them. */
static size_t scan_packs(const char *dir, uint32_t packs, size_t *torn) {
    size_t found = 0; *torn = 0;
    for (uint32_t p = 0; p < packs; p++) {
        char path[4096]; snprintf(path, sizeof path, "%s/pack-%04u", dir, p);
        int fd = open(path, O_RDONLY | O_CLOEXEC); if (fd < 0) continue;
        struct stat st; fstat(fd, &st);
        uint64_t at = 0;
        while (at + sizeof(Header) <= (uint64_t)st.st_size) {
            Header h; if (pread(fd, &h, sizeof h, at) != sizeof h) break;
            uint64_t total = sizeof h + h.name_size + (uint64_t)h.data_size;
            if (h.magic != MAGIC || h.name_size > 4096 || at + total > (uint64_t)st.st_size) { (*torn)++; break; }
            found++; at += total;
        }
        close(fd);
    }
    return found;
}

static size_t walk(const char *path, size_t *bytes) {
    DIR *d = opendir(path); if (!d) return 0;
    size_t n = 0; struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char sub[8192]; snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        if (e->d_type == DT_DIR) { n += walk(sub, bytes); continue; }
        struct stat st; if (stat(sub, &st) == 0) { n++; *bytes += st.st_size; }
    }
    closedir(d); return n;
}

static size_t *sample; static size_t reads;
static uint8_t buffer[64 << 20];

static double read_files(const char *dir) {
    double t0 = now(); char path[8192];
    for (size_t k = 0; k < reads; k++) {
        Tile *t = &tiles[sample[k]]; snprintf(path, sizeof path, "%s/%s", dir, t->name);
        int fd = open(path, O_RDONLY | O_CLOEXEC); if (fd < 0) die("open tile");
        struct stat st; fstat(fd, &st);
        if (pread(fd, buffer, st.st_size, 0) != (ssize_t)t->size) die("pread tile");
        close(fd);
    }
    return now() - t0;
}

static double read_packs(const char *dir, uint32_t packs) {
    int *fds = malloc(packs * sizeof *fds);
    for (uint32_t p = 0; p < packs; p++) {
        char path[4096]; snprintf(path, sizeof path, "%s/pack-%04u", dir, p); fds[p] = open(path, O_RDONLY | O_CLOEXEC);
    }
    double t0 = now();
    for (size_t k = 0; k < reads; k++) {
        Entry *e = &entries[sample[k]];
        if (pread(fds[e->pack], buffer, e->size, e->offset) != (ssize_t)e->size) die("pread pack");
    }
    double t = now() - t0;
    for (uint32_t p = 0; p < packs; p++) close(fds[p]);
    free(fds); return t;
}

static void pause_for_drop(const char *what) {
    printf("DROP %s\n", what); fflush(stdout);
    char line[64]; if (!fgets(line, sizeof line, stdin)) exit(1);
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: %s INPUT_DIR WORK_DIR SAMPLE_READS\n", argv[0]); return 2; }
    load(argv[1], "");
    if (!count) { fprintf(stderr, "no tiles in %s\n", argv[1]); return 1; }
    size_t total = 0; for (size_t i = 0; i < count; i++) total += tiles[i].size;
    printf("FIGURE tiles %zu bytes_MB %.1f mean_KB %.1f\n", count, total / 1048576.0, total / 1024.0 / count);
    entries = calloc(count, sizeof *entries);
    char files[4096], packs_dir[4096];
    snprintf(files, sizeof files, "%s/files", argv[2]); snprintf(packs_dir, sizeof packs_dir, "%s/packs", argv[2]);
    mkdir(argv[2], 0755); mkdir(files, 0755); mkdir(packs_dir, 0755);

    double c0 = cpu(), t0 = now(); write_files(files); double wf = now() - t0, cf0 = cpu() - c0;
    sync(); double wfs = now() - t0 - wf;
    c0 = cpu(); t0 = now(); uint32_t packs = write_packs(packs_dir); double wp = now() - t0, cp0 = cpu() - c0;
    sync(); double wps = now() - t0 - wp;
    printf("FIGURE write files_s %.2f cpu_s %.2f then_sync_s %.2f packs_s %.2f cpu_s %.2f then_sync_s %.2f\n",
           wf, cf0, wfs, wp, cp0, wps);

    reads = (size_t)atol(argv[3]); if (reads > count) reads = count;
    sample = malloc(reads * sizeof *sample); srand(7);
    for (size_t k = 0; k < reads; k++) sample[k] = ((size_t)rand() << 16 ^ (size_t)rand()) % count;

    pause_for_drop("cold files");
    double cf = read_files(files);
    pause_for_drop("cold packs");
    double cp = read_packs(packs_dir, packs);
    printf("FIGURE read_cold reads %zu files_ms_per_1000 %.1f packs_ms_per_1000 %.1f\n", reads, cf * 1e6 / reads, cp * 1e6 / reads);
    double hf[3], hp[3];
    for (int r = 0; r < 3; r++) { hf[r] = read_files(files); hp[r] = read_packs(packs_dir, packs); }
    double bf = hf[0], bp = hp[0]; for (int r = 1; r < 3; r++) { if (hf[r] < bf) bf = hf[r]; if (hp[r] < bp) bp = hp[r]; }
    printf("FIGURE read_warm reads %zu files_us_per_read %.2f packs_us_per_read %.2f (best of 3)\n", reads, bf * 1e6 / reads, bp * 1e6 / reads);

    pause_for_drop("restart files");
    size_t bytes = 0; t0 = now(); size_t nf = walk(files, &bytes); double sf = now() - t0;
    pause_for_drop("restart packs");
    size_t torn; t0 = now(); size_t np = scan_packs(packs_dir, packs, &torn); double sp = now() - t0;
    printf("FIGURE restart_cold files_s %.2f (%zu tiles) packs_s %.2f (%zu tiles, every header)\n", sf, nf, sp, np);

    /* A kill mid-append: the last pack cut inside its last record. */
    char last[4096]; snprintf(last, sizeof last, "%s/pack-%04u", packs_dir, packs - 1);
    struct stat st; stat(last, &st); if (truncate(last, st.st_size - tiles[count - 1].size / 2) != 0) die("truncate");
    np = scan_packs(packs_dir, packs, &torn);
    printf("FIGURE torn_tail packs_found %zu of %zu torn_records %zu\n", np, count, torn);

    /* Evicting half of the tiles in an LRU order unrelated to write order: files unlink; packs must copy the
     * live half of every pack to new packs to get the space back. */
    t0 = now(); char path[8192]; size_t moved = 0;
    for (size_t i = 0; i < count; i += 2) { snprintf(path, sizeof path, "%s/%s", files, tiles[i].name); unlink(path); }
    sync(); double ef = now() - t0;
    t0 = now();
    for (size_t i = 1; i < count; i += 2) moved += tiles[i].size;
    for (size_t i = 0; i < count / 2; i++) tiles[i] = tiles[2 * i + 1];
    count /= 2; snprintf(path, sizeof path, "%s/compacted", packs_dir); mkdir(path, 0755);
    write_packs(path); sync();
    for (uint32_t p = 0; p < packs; p++) { snprintf(path, sizeof path, "%s/pack-%04u", packs_dir, p); unlink(path); }
    double ep = now() - t0;
    printf("FIGURE evict_half files_s %.2f packs_s %.2f packs_rewrote_MB %.0f\n", ef, ep, moved / 1048576.0);
    return 0;
}
