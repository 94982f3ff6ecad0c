/* fleet-mpi-pingpong BYTES ROUNDS: the plain MPI reference of bench row MP3
 * (bench/rows/mpi.py). Ranks 0 and 1 bounce BYTES back and forth ROUNDS
 * times with blocking MPI_Send/MPI_Recv (chunks of at most 16 MiB, as the
 * mpi driver sends them); rank 0 prints the one-way bandwidth of the best
 * and of the median round trip, and the median round trip (bench row MP4's
 * floor): "pingpong BYTES bytes: X GB/s best, Y GB/s median, round trip
 * median Z us". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void transfer(char *data, long bytes, int peer, int sending) {
  const long chunk = 16L << 20;
  for (long done = 0; done < bytes; done += chunk) {
    int count = (int)(bytes - done < chunk ? bytes - done : chunk);
    if (sending)
      MPI_Send(data + done, count, MPI_BYTE, peer, 7, MPI_COMM_WORLD);
    else
      MPI_Recv(data + done, count, MPI_BYTE, peer, 7, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  }
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long bytes = argc > 1 ? atol(argv[1]) : 1 << 20;
  int rounds = argc > 2 ? atoi(argv[2]) : 20;
  if (size != 2 || bytes <= 0 || rounds <= 0) {
    if (rank == 0)
      fprintf(stderr, "usage: mpirun -np 2 fleet-mpi-pingpong BYTES ROUNDS\n");
    MPI_Finalize();
    return 1;
  }
  char *data = calloc(1, (size_t)bytes);
  double *trips = calloc((size_t)rounds, sizeof(double));
  double best = 1e30;
  for (int i = 0; i < rounds; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    transfer(data, bytes, 1 - rank, rank == 0);
    transfer(data, bytes, 1 - rank, rank != 0);
    double trip = MPI_Wtime() - start;
    trips[i] = trip;
    if (trip < best)
      best = trip;
  }
  qsort(trips, (size_t)rounds, sizeof(double), compare);
  double median = trips[(rounds - 1) / 2];
  if (rank == 0)
    printf("pingpong %ld bytes: %.3f GB/s best, %.3f GB/s median, round "
           "trip median %.1f us\n",
           bytes, bytes / (best / 2) / 1e9, bytes / (median / 2) / 1e9,
           median * 1e6);
  free(trips);
  free(data);
  MPI_Finalize();
  return 0;
}
