! rdmpi_latency_f77: the 8-byte ping-pong of rdmpi_latency (latency.c) written with
! include 'mpif.h' (INTEGER handles, IERROR, no interfaces), so the cost of the Fortran layer
! shows beside the C figure (latency_f08.f90 is the mpi_f08 form). Rank 0 sends, rank 1 answers; printed: the mean one-way latency (half the round
! trip) over the timed iterations, and half the median round trip (one descheduled iteration
! moves the median by nothing). Arguments: [iterations] (default 10000, 100 more as warm-up).
program rdmpi_latency_f77
    implicit none
    include 'mpif.h'
    integer, parameter :: warmup = 100
    integer :: rank, nranks, iters, i, peer, ierr
    character(len=8) :: sbuf, rbuf
    character(len=32) :: arg
    double precision :: t0, t, now
    double precision, allocatable :: lap(:)

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
    if (nranks /= 2) then
        if (rank == 0) write(0, '(a)') 'rdmpi_latency_f77: run with exactly 2 ranks'
        call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
    iters = 10000
    if (command_argument_count() >= 1) then
        call get_command_argument(1, arg)
        read(arg, *) iters
    end if
    allocate(lap(iters))
    peer = 1 - rank
    sbuf = 'pingpong'
    t0 = MPI_Wtime()
    t = t0
    do i = 1, warmup + iters
        if (i == warmup + 1) then
            t0 = MPI_Wtime()
            t = t0
        end if
        if (i > warmup + 1) then
            now = MPI_Wtime()
            lap(i - warmup - 1) = now - t
            t = now
        end if
        if (rank == 0) then
            call MPI_Send(sbuf, 8, MPI_CHARACTER, peer, 1, MPI_COMM_WORLD, ierr)
            call MPI_Recv(rbuf, 8, MPI_CHARACTER, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        else
            call MPI_Recv(rbuf, 8, MPI_CHARACTER, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
            call MPI_Send(sbuf, 8, MPI_CHARACTER, peer, 1, MPI_COMM_WORLD, ierr)
        end if
    end do
    now = MPI_Wtime()
    lap(iters) = now - t
    if (rank == 0) then
        write(*, '(a)') "# rdmpi_latency_f77 (include 'mpif.h'): 8 bytes"
        write(*, '(a)') '# Size    Latency (us)   Median (us)'
        write(*, '(i6, 2f14.2)') 8, (now - t0) * 1d6 / (2d0 * iters), median(lap) * 1d6 / 2d0
    end if
    call MPI_Finalize(ierr)
contains
    ! The median by sorting a copy (insertion sort: a benchmark's iteration count is small).
    double precision function median(x)
        double precision, intent(in) :: x(:)
        double precision :: s(size(x)), v
        integer :: a, b
        s = x
        do a = 2, size(s)
            v = s(a)
            b = a - 1
            do while (b >= 1)
                if (s(b) <= v) exit
                s(b + 1) = s(b)
                b = b - 1
            end do
            s(b + 1) = v
        end do
        median = s((size(s) + 1) / 2)
    end function
end program
