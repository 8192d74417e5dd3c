! `use mpi`: explicit interfaces (a choice buffer of any type and rank), derived types built
! from Fortran, character and logical data, in-place collectives, a Cartesian topology with
! LOGICAL periods, MPI_Type_create_f90_*, request arrays with MPI_STATUSES_IGNORE, attribute
! keyvals with Fortran copy/delete procedures and the predefined ones.
program fort_mpi
    use mpi
    implicit none
    integer :: rank, size, ierr, i, j, vec, ndims, nt
    integer :: a(4, 3), col(4)
    integer, allocatable :: vals(:), reqs(:)
    double precision :: m(3, 3)
    character(len=16) :: word
    logical :: periods(2), gperiods(2), flag
    integer :: dims(2), coords(2), cart, gdims(2), gcoords(2)
    integer :: r8
    integer :: sz, val
    complex(kind=8) :: z, zs

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)

    ! a column of a 2-D array is contiguous; a row is a vector type
    do j = 1, 3
        do i = 1, 4
            a(i, j) = 100 * i + j + rank * 1000
        end do
    end do
    call MPI_Type_vector(3, 1, 4, MPI_INTEGER, vec, ierr)
    call MPI_Type_commit(vec, ierr)
    if (rank == 0) then
        do i = 1, 4
            a(i, :) = [(100 * i + j, j = 1, 3)]
        end do
    end if
    call MPI_Bcast(a(2, 1), 1, vec, 0, MPI_COMM_WORLD, ierr)   ! row 2
    do j = 1, 3
        call check(a(2, j) == 200 + j, 'vector type bcast')
        if (rank /= 0) call check(a(1, j) == 100 + j + rank * 1000, 'vector type leaves the rest')
    end do
    call MPI_Type_free(vec, ierr)
    call check(vec == MPI_DATATYPE_NULL, 'type free')

    ! character data
    word = ' '
    if (rank == 0) word = 'hello fortran'
    call MPI_Bcast(word, len(word), MPI_CHARACTER, 0, MPI_COMM_WORLD, ierr)
    call check(word == 'hello fortran', 'character bcast')

    ! gather, and an in-place allgather into a 1-D array
    allocate(vals(size), reqs(2 * size))
    call MPI_Gather(rank * 3, 1, MPI_INTEGER, vals, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    if (rank == 0) then
        do i = 1, size
            call check(vals(i) == (i - 1) * 3, 'gather')
        end do
    end if
    vals = -1
    vals(rank + 1) = rank * 5
    call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, vals, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    do i = 1, size
        call check(vals(i) == (i - 1) * 5, 'in-place allgather')
    end do

    ! a 2-D double precision array reduced whole
    m = rank
    call MPI_Allreduce(MPI_IN_PLACE, m, 9, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    call check(all(m == dble(size * (size - 1) / 2)), 'in-place allreduce of a 2-D array')

    ! complex
    z = cmplx(rank, 1, kind=8)
    call MPI_Allreduce(z, zs, 1, MPI_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD, ierr)
    call check(zs == cmplx(size * (size - 1) / 2, size, kind=8), 'double complex sum')

    ! topology: LOGICAL periods in and out
    dims = 0
    call MPI_Dims_create(size, 2, dims, ierr)
    periods = [.true., .false.]
    call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierr)
    call MPI_Cartdim_get(cart, ndims, ierr)
    call check(ndims == 2, 'cartdim')
    call MPI_Cart_get(cart, 2, gdims, gperiods, gcoords, ierr)
    call check(all(gdims == dims), 'cart dims')
    call check(gperiods(1) .and. .not. gperiods(2), 'cart periods are LOGICAL')
    call MPI_Cart_coords(cart, rank, 2, coords, ierr)
    call check(all(coords == gcoords), 'cart coords')
    call MPI_Comm_test_inter(cart, flag, ierr)
    call check(.not. flag, 'test_inter flag')
    call MPI_Comm_free(cart, ierr)

    ! Fortran kinds
    call MPI_Type_create_f90_real(15, 300, r8, ierr)
    call MPI_Type_size(r8, sz, ierr)
    call check(sz == 8, 'f90 real(15,300) is 8 bytes')
    call MPI_Type_create_f90_integer(9, nt, ierr)
    call MPI_Type_size(nt, sz, ierr)
    call check(sz == 4, 'f90 integer(9) is 4 bytes')

    ! request arrays, statuses ignored
    do i = 0, size - 1
        call MPI_Irecv(vals(i + 1), 1, MPI_INTEGER, i, 3, MPI_COMM_WORLD, reqs(i + 1), ierr)
    end do
    val = rank + 40
    do i = 0, size - 1
        call MPI_Isend(val, 1, MPI_INTEGER, i, 3, MPI_COMM_WORLD, reqs(size + i + 1), ierr)
    end do
    call MPI_Waitall(2 * size, reqs, MPI_STATUSES_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS, 'waitall')
    do i = 1, size
        call check(vals(i) == i - 1 + 40, 'waitall data')
        call check(reqs(i) == MPI_REQUEST_NULL, 'waitall frees')
    end do

    call keyvals()

    call MPI_Finalize(ierr)
contains
    subroutine keyvals()
        integer :: kv_user, kv_dup, kv_null, c1, c2, ndel
        integer(kind=MPI_ADDRESS_KIND) :: v, extra
        logical :: found
        external :: copy_plus_extra, delete_count
        common /fort_mpi_deleted/ ndel
        ndel = 0
        extra = 10
        call MPI_Comm_create_keyval(copy_plus_extra, delete_count, kv_user, extra, ierr)
        call check(ierr == MPI_SUCCESS, 'create keyval with Fortran procedures')
        call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, kv_dup, extra, ierr)
        call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, kv_null, &
                                    extra, ierr)
        call MPI_Comm_dup(MPI_COMM_WORLD, c1, ierr)
        call MPI_Comm_set_attr(c1, kv_user, 5_MPI_ADDRESS_KIND, ierr)
        call MPI_Comm_set_attr(c1, kv_dup, 77_MPI_ADDRESS_KIND, ierr)
        call MPI_Comm_set_attr(c1, kv_null, 99_MPI_ADDRESS_KIND, ierr)
        call MPI_Comm_dup(c1, c2, ierr)
        call MPI_Comm_get_attr(c2, kv_user, v, found, ierr)
        call check(found .and. v == 15, 'Fortran copy procedure (value + extra_state)')
        call MPI_Comm_get_attr(c2, kv_dup, v, found, ierr)
        call check(found .and. v == 77, 'MPI_COMM_DUP_FN from Fortran')
        call MPI_Comm_get_attr(c2, kv_null, v, found, ierr)
        call check(.not. found, 'MPI_COMM_NULL_COPY_FN from Fortran')
        call MPI_Comm_free(c2, ierr)
        call check(ndel == 1, 'Fortran delete procedure on free')
        call MPI_Comm_delete_attr(c1, kv_user, ierr)
        call check(ndel == 2, 'Fortran delete procedure on delete_attr')
        call MPI_Comm_free(c1, ierr)
        call MPI_Comm_free_keyval(kv_user, ierr)
        call check(kv_user == MPI_KEYVAL_INVALID, 'free_keyval')
        call MPI_Comm_free_keyval(kv_dup, ierr)
        call MPI_Comm_free_keyval(kv_null, ierr)
    end subroutine

    subroutine check(ok, what)
        logical, intent(in) :: ok
        character(len=*), intent(in) :: what
        integer :: e
        if (.not. ok) then
            write(0, *) 'FAIL: rank ', rank, ': ', what
            call MPI_Abort(MPI_COMM_WORLD, 1, e)
        end if
    end subroutine
end program

subroutine copy_plus_extra(oldcomm, keyval, extra, val_in, val_out, flag, ierr)
    use mpi
    implicit none
    integer :: oldcomm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: extra, val_in, val_out
    logical :: flag
    val_out = val_in + extra
    flag = .true.
    ierr = MPI_SUCCESS
end subroutine

subroutine delete_count(comm, keyval, val, extra, ierr)
    use mpi
    implicit none
    integer :: comm, keyval, ierr, ndel
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    common /fort_mpi_deleted/ ndel
    ndel = ndel + 1
    ierr = MPI_SUCCESS
end subroutine
