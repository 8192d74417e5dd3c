! `use mpi_f08`: handle types and their comparisons, optional ierror, TYPE(MPI_Status) (and
! MPI_Status_f082f/f2f08),
! TYPE(*), DIMENSION(..) buffers of any rank, MPI_IN_PLACE, MINLOC on MPI_2DOUBLE_PRECISION,
! Testany/Waitsome indices, strings, strided sections (as derived types, or copies where
! buffers share a count: fort_subarray has the rest), derived types.
program fort_f08
    use mpi_f08
    implicit none
    integer :: rank, size, ierr, i, n, cnt, outcount, idx
    integer :: grid(3, 2), got(3, 2), indices(2), fst(MPI_STATUS_SIZE)
    double precision :: dp(2), dr(2)
    type(MPI_Comm) :: dup
    type(MPI_Status) :: st, sts(2)
    type(MPI_Request) :: reqs(2)
    type(MPI_Datatype) :: pairt
    character(len=MPI_MAX_OBJECT_NAME) :: name
    character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: ver
    logical :: flag
    integer :: cls, kv
    integer(kind=MPI_ADDRESS_KIND) :: extra = 0, aval

    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
    call check(ierr == MPI_SUCCESS, 'ierror present')
    call check(MPI_COMM_WORLD /= MPI_COMM_NULL, 'handle /=')
    call check(MPI_SUBARRAYS_SUPPORTED, 'subarrays supported')

    ! a 2-D array sent whole, status as a derived type
    grid = reshape([(rank * 100 + i, i = 1, 6)], [3, 2])
    call MPI_Sendrecv(grid, 6, MPI_INTEGER, mod(rank + 1, size), 4, got, 6, MPI_INTEGER, &
                      mod(rank + size - 1, size), 4, MPI_COMM_WORLD, st)
    call check(st%MPI_SOURCE == mod(rank + size - 1, size), 'status%MPI_SOURCE')
    call check(st%MPI_TAG == 4, 'status%MPI_TAG')
    call MPI_Get_count(st, MPI_INTEGER, cnt)
    call check(cnt == 6, 'get_count')
    call check(got(3, 2) == mod(rank + size - 1, size) * 100 + 6, '2-D data')

    ! the status as mpif.h's INTEGER array and back (MPI_Status_f082f/f2f08)
    call MPI_Status_f082f(st, fst)
    call check(fst(MPI_SOURCE) == st%MPI_SOURCE .and. fst(MPI_TAG) == 4, 'MPI_Status_f082f')
    fst(MPI_TAG) = 9
    call MPI_Status_f2f08(fst, sts(1), ierr)
    call check(ierr == MPI_SUCCESS .and. sts(1)%MPI_TAG == 9 .and. &
               sts(1)%MPI_SOURCE == st%MPI_SOURCE, 'MPI_Status_f2f08')
    call MPI_Get_count(sts(1), MPI_INTEGER, cnt)
    call check(cnt == 6, 'get_count of a converted status')

    ! MINLOC on MPI_2DOUBLE_PRECISION, in place
    dp = [dble(mod(rank, 3)), dble(rank)]
    call MPI_Allreduce(MPI_IN_PLACE, dp, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC, MPI_COMM_WORLD)
    call check(dp(1) == 0.0d0 .and. dp(2) == 0.0d0, 'minloc in place')
    dp = [dble(mod(rank, 2)), dble(rank)]
    call MPI_Reduce(dp, dr, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, 0, MPI_COMM_WORLD)
    if (rank == 0) then
        if (size > 1) then
            call check(dr(1) == 1.0d0 .and. dr(2) == 1.0d0, 'maxloc lowest index')
        else
            call check(dr(1) == 0.0d0 .and. dr(2) == 0.0d0, 'maxloc one rank')
        end if
    end if

    ! nonblocking: Testany and Waitsome give 1-based indices
    call MPI_Irecv(got, 6, MPI_INTEGER, mod(rank + size - 1, size), 5, MPI_COMM_WORLD, reqs(1))
    call MPI_Isend(grid, 6, MPI_INTEGER, mod(rank + 1, size), 5, MPI_COMM_WORLD, reqs(2))
    flag = .false.
    do while (.not. flag)
        call MPI_Testany(2, reqs, idx, flag, st)
    end do
    call check(idx == 1 .or. idx == 2, 'testany index is 1-based')
    call check(reqs(idx) == MPI_REQUEST_NULL, 'testany frees')
    call MPI_Waitsome(2, reqs, outcount, indices, sts)
    call check(outcount == 1 .and. indices(1) == 3 - idx, 'waitsome indices are 1-based')
    call MPI_Waitsome(2, reqs, outcount, indices, sts)
    call check(outcount == MPI_UNDEFINED, 'waitsome with no active request')

    ! a derived type of two doubles
    call MPI_Type_contiguous(2, MPI_DOUBLE_PRECISION, pairt)
    call MPI_Type_commit(pairt)
    call MPI_Type_size(pairt, n)
    call check(n == 16, 'contiguous type size')
    call MPI_Type_free(pairt)
    call check(pairt == MPI_DATATYPE_NULL, 'type free')

    ! an attribute copied by the predefined MPI_COMM_DUP_FN
    call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, kv, extra)
    call MPI_Comm_set_attr(MPI_COMM_WORLD, kv, 4242_MPI_ADDRESS_KIND)

    ! strings
    call MPI_Comm_dup(MPI_COMM_WORLD, dup)
    call MPI_Comm_get_attr(dup, kv, aval, flag)
    call check(flag .and. aval == 4242, 'MPI_COMM_DUP_FN copies')
    call MPI_Comm_delete_attr(MPI_COMM_WORLD, kv)
    call MPI_Comm_free_keyval(kv)
    call MPI_Comm_set_name(dup, 'f08 dup')
    call MPI_Comm_get_name(dup, name, n)
    call check(name == 'f08 dup' .and. n == 7, 'comm name')
    call MPI_Get_library_version(ver, n)
    call check(n > 0 .and. ver(n + 1:) == ' ', 'library version padded')
    call MPI_Comm_free(dup)
    call check(dup == MPI_COMM_NULL, 'free sets NULL')

    ! a strided section with its count and datatype travels as a derived type (blocking and
    ! nonblocking)
    grid = reshape([(rank * 10 + i, i = 1, 6)], [3, 2])
    got = -1
    call MPI_Sendrecv(grid(2, :), 2, MPI_INTEGER, rank, 7, got(3, :), 2, MPI_INTEGER, rank, 7, &
                      MPI_COMM_WORLD, st)
    call check(got(3, 1) == rank * 10 + 2 .and. got(3, 2) == rank * 10 + 5 .and. &
               all(got(1:2, :) == -1), 'strided sections sent and received')
    call MPI_Get_count(st, MPI_INTEGER, cnt)
    call check(cnt == 2, 'count of a strided receive')
    got = -1
    call MPI_Irecv(got(1:3:2, 2), 2, MPI_INTEGER, rank, 8, MPI_COMM_WORLD, reqs(1))
    call MPI_Isend(grid(3:1:-2, 1), 2, MPI_INTEGER, rank, 8, MPI_COMM_WORLD, reqs(2))
    call MPI_Waitall(2, reqs, sts)
    call check(got(1, 2) == rank * 10 + 3 .and. got(3, 2) == rank * 10 + 1 .and. got(2, 2) == -1, &
               'strided and reversed sections, nonblocking')
    ! a count that covers the section's first elements only: those
    got = -1
    call MPI_Sendrecv(grid(1, :), 1, MPI_INTEGER, rank, 6, got(1:3:2, 1), 1, MPI_INTEGER, rank, &
                      6, MPI_COMM_WORLD, st)
    call check(got(1, 1) == rank * 10 + 1 .and. all(got(2:3, 1) == -1) .and. &
               all(got(:, 2) == -1), 'a count covering part of a section')
    ! MPI_Allreduce's buffers share one count and type: strided ones go through copies
    got = -1
    call MPI_Allreduce(grid(1, :), got(2, :), 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call check(ierr == MPI_SUCCESS .and. got(2, 1) == 10 * (size * (size - 1) / 2) + size .and. &
               got(2, 2) == 10 * (size * (size - 1) / 2) + 4 * size .and. &
               all(got(1, :) == -1) .and. all(got(3, :) == -1), 'strided Allreduce')

    call MPI_Finalize(ierr)
    call check(ierr == MPI_SUCCESS, 'finalize')
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
