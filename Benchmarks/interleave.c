// Start-up timing, round-robin (Benchmarks/README.md, Start-up): hyperfine runs each command's
// runs in one block, so load that changes between blocks changes the ratio; this runs one process
// of each command in turn, reversing the order every round, and prints per command the median
// and quartiles of the wall clock and the median of user + system CPU time (from wait4), then
// each command's ratio to the last one.
// Build: cc -O2 -o /tmp/interleave Benchmarks/interleave.c
// Usage: /tmp/interleave RUNS WARMUP -- /abs/path/A args... -- /abs/path/B args... [-- ...]
// (no PATH search: give each program's path). Output goes to /dev/null.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <sys/resource.h>
#include <spawn.h>
extern char **environ;
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv) {
    int runs = atoi(argv[1]), warm = atoi(argv[2]);
    char **cmds[16]; int n = 0;
    for (int i = 3; i < argc; i++) if (!strcmp(argv[i], "--")) { argv[i] = NULL; cmds[n++] = &argv[i + 1]; }
    double *wall[16], *cpu[16];
    for (int c = 0; c < n; c++) { wall[c] = calloc(runs, sizeof(double)); cpu[c] = calloc(runs, sizeof(double)); }
    posix_spawn_file_actions_t fa; posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    for (int r = -warm; r < runs; r++) for (int c = 0; c < n; c++) {
        int cc = (r & 1) ? n - 1 - c : c; // alternate order each round
        struct timespec t0, t1; struct rusage ru; int st; pid_t pid;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        if (posix_spawn(&pid, cmds[cc][0], &fa, NULL, cmds[cc], environ)) { perror("spawn"); return 1; }
        wait4(pid, &st, 0, &ru);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (r < 0) continue;
        wall[cc][r] = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
        cpu[cc][r] = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
    }
    double base = 0, basec = 0;
    for (int c = 0; c < n; c++) {
        qsort(wall[c], runs, sizeof(double), cmp); qsort(cpu[c], runs, sizeof(double), cmp);
        double m = wall[c][runs / 2], mc = cpu[c][runs / 2];
        if (c == n - 1) { base = m; basec = mc; }
        printf("%-60.60s wall median %7.2f ms (q1 %6.2f, q3 %6.2f)  cpu median %7.2f ms\n", cmds[c][0], m, wall[c][runs / 4], wall[c][3 * runs / 4], mc);
    }
    for (int c = 0; c < n - 1; c++) printf("ratio %s / last: wall %.2fx, cpu %.2fx\n", cmds[c][0], wall[c][runs / 2] / base, cpu[c][runs / 2] / basec);
    return 0;
}
