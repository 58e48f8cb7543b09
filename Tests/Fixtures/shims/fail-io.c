/* A fault-injecting shim for the tests (LD_PRELOAD): one I/O error on the Nth unlock of a
 * SQLite shared-memory lock (FAIL_SHM_UNLOCK_AT=N) or on the Nth pread (FAIL_PREAD_AT=N), or
 * every pread from the Nth on blocking for ever (HANG_PREAD_FROM=N), as a file system that
 * stopped answering would; or every password hash taking SLOW_PBKDF2_MS milliseconds longer, as
 * on a loaded machine. FAIL_COUNT=1 prints how many of each happened, at exit. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/types.h>

static long unlocks, reads;
static long env(const char *name) { const char *v = getenv(name); return v ? atol(v) : 0; }

static int is_shm(int fd) {
    char link[64], path[512];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0) return 0;
    path[n] = 0;
    return n > 4 && strcmp(path + n - 4, "-shm") == 0;
}

static int failing_fcntl(int (*real)(int, int, ...), int fd, int cmd, void *arg) {
    if ((cmd == F_SETLK || cmd == F_SETLKW) && arg && ((struct flock *)arg)->l_type == F_UNLCK && is_shm(fd)) {
        long target = env("FAIL_SHM_UNLOCK_AT");
        if (__atomic_add_fetch(&unlocks, 1, __ATOMIC_SEQ_CST) == target) { errno = EIO; return -1; }
    }
    return real(fd, cmd, arg);
}
int fcntl(int fd, int cmd, ...) {
    static int (*real)(int, int, ...);
    if (!real) real = (int (*)(int, int, ...))dlsym(RTLD_NEXT, "fcntl");
    va_list args; va_start(args, cmd); void *arg = va_arg(args, void *); va_end(args);
    return failing_fcntl(real, fd, cmd, arg);
}
int fcntl64(int fd, int cmd, ...) {
    static int (*real)(int, int, ...);
    if (!real) real = (int (*)(int, int, ...))dlsym(RTLD_NEXT, "fcntl64");
    va_list args; va_start(args, cmd); void *arg = va_arg(args, void *); va_end(args);
    return failing_fcntl(real, fd, cmd, arg);
}

static ssize_t failing_read(ssize_t (*real)(int, void *, size_t, off_t), int fd, void *buf, size_t count, off_t offset) {
    long read = __atomic_add_fetch(&reads, 1, __ATOMIC_SEQ_CST);
    if (read == env("FAIL_PREAD_AT")) { errno = EIO; return -1; }
    if (read >= env("HANG_PREAD_FROM") && env("HANG_PREAD_FROM") > 0) { for (;;) pause(); }
    return real(fd, buf, count, offset);
}
ssize_t pread(int fd, void *buf, size_t count, off_t offset) {
    static ssize_t (*real)(int, void *, size_t, off_t);
    if (!real) real = (ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
    return failing_read(real, fd, buf, count, offset);
}
ssize_t pread64(int fd, void *buf, size_t count, off_t offset) {
    static ssize_t (*real)(int, void *, size_t, off_t);
    if (!real) real = (ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread64");
    return failing_read(real, fd, buf, count, offset);
}
int PKCS5_PBKDF2_HMAC(const char *pass, int passlen, const unsigned char *salt, int saltlen, int iter,
                      const void *digest, int keylen, unsigned char *out) {
    static int (*real)(const char *, int, const unsigned char *, int, int, const void *, int, unsigned char *);
    if (!real) real = (int (*)(const char *, int, const unsigned char *, int, int, const void *, int, unsigned char *))dlsym(RTLD_NEXT, "PKCS5_PBKDF2_HMAC");
    long delay = env("SLOW_PBKDF2_MS");
    if (delay > 0) usleep((useconds_t)(delay * 1000));
    return real(pass, passlen, salt, saltlen, iter, digest, keylen, out);
}
__attribute__((destructor)) static void report(void) {
    if (getenv("FAIL_COUNT")) fprintf(stderr, "shim: %ld shm unlocks, %ld preads\n", unlocks, reads);
}
