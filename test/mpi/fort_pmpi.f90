! The profiling names from Fortran: PMPI_ calls through mpi_f08 (choice buffers, optional
! ierror, handles), `use mpi` and mpif.h (each in a program unit of its own), including the
! ones that are functions (PMPI_WTIME) and take procedures (PMPI_COMM_CREATE_KEYVAL).
program fort_pmpi
    use mpi_f08
    implicit none
    integer :: rank, size, sum, peer, got, kv
    logical :: flag
    integer(kind=MPI_ADDRESS_KIND) :: val
    double precision :: t0
    type(MPI_Status) :: st
    type(MPI_Comm) :: dup

    call PMPI_Init()
    call PMPI_Comm_rank(MPI_COMM_WORLD, rank)
    call PMPI_Comm_size(MPI_COMM_WORLD, size)
    t0 = PMPI_Wtime()
    call PMPI_Allreduce(rank, sum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    call check(sum == size * (size - 1) / 2, 'PMPI_Allreduce')
    peer = ieor(rank, 1)
    if (peer < size) then
        call PMPI_Sendrecv(rank, 1, MPI_INTEGER, peer, 5, got, 1, MPI_INTEGER, peer, 5, &
                           MPI_COMM_WORLD, st)
        call check(got == peer .and. st%MPI_SOURCE == peer, 'PMPI_Sendrecv')
    end if
    call PMPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, kv, 0_MPI_ADDRESS_KIND)
    call PMPI_Comm_set_attr(MPI_COMM_WORLD, kv, 77_MPI_ADDRESS_KIND)
    call PMPI_Comm_dup(MPI_COMM_WORLD, dup)
    call PMPI_Comm_get_attr(dup, kv, val, flag)
    call check(flag .and. val == 77, 'PMPI_ keyval, set_attr, dup, get_attr')
    call PMPI_Comm_free(dup)
    call PMPI_Comm_delete_attr(MPI_COMM_WORLD, kv)
    call PMPI_Comm_free_keyval(kv)
    call check(PMPI_Wtime() >= t0, 'PMPI_Wtime')

    call with_mpi(rank, size)
    call with_mpif(rank, size)
    call PMPI_Finalize()
contains
    subroutine check(ok, what)
        logical, intent(in) :: ok
        character(len=*), intent(in) :: what
        if (.not. ok) then
            write(0, *) 'FAIL: rank ', rank, ': ', what
            call MPI_Abort(MPI_COMM_WORLD, 1)
        end if
    end subroutine
end program

subroutine with_mpi(rank, size)
    use mpi
    implicit none
    integer, intent(in) :: rank, size
    integer :: ierr, e, n, bsum
    call PMPI_Comm_size(MPI_COMM_WORLD, n, ierr)
    call PMPI_Reduce(rank + 1, bsum, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    if (n /= size .or. ierr /= MPI_SUCCESS .or. (rank == 0 .and. bsum /= size * (size + 1) / 2)) then
        write(0, *) 'FAIL: rank ', rank, ': PMPI_ calls through use mpi'
        call MPI_Abort(MPI_COMM_WORLD, 1, e)
    end if
end subroutine

subroutine with_mpif(rank, size)
    implicit none
    include 'mpif.h'
    integer rank, size, ierr, e, n
    double precision t
    call PMPI_COMM_SIZE(MPI_COMM_WORLD, n, ierr)
    t = PMPI_WTIME()
    call PMPI_BARRIER(MPI_COMM_WORLD, ierr)
    if (n .ne. size .or. ierr .ne. MPI_SUCCESS .or. PMPI_WTIME() .lt. t .or. &
        PMPI_WTICK() .le. 0d0) then
        write(0, *) 'FAIL: rank ', rank, ': PMPI_ calls through mpif.h'
        call MPI_Abort(MPI_COMM_WORLD, 1, e)
    end if
end subroutine
