! `use mpi`: explicit interfaces (a choice buffer of any type and rank), derived types built
! from Fortran, character and logical data, in-place collectives, a Cartesian topology with
! LOGICAL periods, MPI_Type_create_f90_*, request arrays with MPI_STATUSES_IGNORE.
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

    call MPI_Finalize(ierr)
contains
    subroutine check(ok, what)
        logical, intent(in) :: ok
        character(len=*), intent(in) :: what
        integer :: e
        if (.not. ok) then
            print *, 'FAIL: rank ', rank, ': ', what
            call MPI_Abort(MPI_COMM_WORLD, 1, e)
        end if
    end subroutine
end program
