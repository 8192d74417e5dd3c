! Mixed C and Fortran: Fortran handles turned into C handles with MPI_Comm_f2c/MPI_Type_f2c
! and used by the C interface (called through BIND(C)), C handles made by C turned back with
! the c2f functions, and statuses converted both ways (C's and mpi_f08's).
program fort_mixed
    use mpi
    use, intrinsic :: iso_c_binding
    implicit none
    interface
        function MPI_Comm_f2c(f) bind(C, name='MPI_Comm_f2c')
            import :: c_int, c_ptr
            integer(c_int), value :: f
            type(c_ptr) :: MPI_Comm_f2c
        end function
        function MPI_Comm_c2f(c) bind(C, name='MPI_Comm_c2f')
            import :: c_int, c_ptr
            type(c_ptr), value :: c
            integer(c_int) :: MPI_Comm_c2f
        end function
        function MPI_Type_f2c(f) bind(C, name='MPI_Type_f2c')
            import :: c_int, c_ptr
            integer(c_int), value :: f
            type(c_ptr) :: MPI_Type_f2c
        end function
        function c_comm_size(c, n) bind(C, name='PMPI_Comm_size')
            import :: c_int, c_ptr
            type(c_ptr), value :: c
            integer(c_int) :: n, c_comm_size
        end function
        function c_type_size(t, n) bind(C, name='PMPI_Type_size')
            import :: c_int, c_ptr
            type(c_ptr), value :: t
            integer(c_int) :: n, c_type_size
        end function
        function c_comm_dup(c, newc) bind(C, name='PMPI_Comm_dup')
            import :: c_int, c_ptr
            type(c_ptr), value :: c
            type(c_ptr) :: newc
            integer(c_int) :: c_comm_dup
        end function
        function c_status_f2c(f, c) bind(C, name='MPI_Status_f2c')
            import :: c_int
            integer(c_int) :: f(*), c(*), c_status_f2c
        end function
        function c_status_c2f(c, f) bind(C, name='MPI_Status_c2f')
            import :: c_int
            integer(c_int) :: f(*), c(*), c_status_c2f
        end function
        function c_status_f082f(f08, f) bind(C, name='MPI_Status_f082f')
            import :: c_int
            integer(c_int) :: f08(*), f(*), c_status_f082f
        end function
        function c_status_f2f08(f, f08) bind(C, name='MPI_Status_f2f08')
            import :: c_int
            integer(c_int) :: f(*), f08(*), c_status_f2f08
        end function
    end interface
    integer :: rank, size, ierr, n, fdup, fsize, i
    type(c_ptr) :: cworld, cdup, ctype
    integer :: st(MPI_STATUS_SIZE), st2(MPI_STATUS_SIZE), cst(MPI_STATUS_SIZE), f08st(MPI_STATUS_SIZE)
    integer :: types(8), sizes(8)

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)

    cworld = MPI_Comm_f2c(MPI_COMM_WORLD)
    call check(c_comm_size(cworld, n) == MPI_SUCCESS .and. n == size, 'C size of f2c(world)')
    call check(MPI_Comm_c2f(cworld) == MPI_COMM_WORLD, 'c2f(f2c(world))')

    ! a communicator made by C, used from Fortran
    call check(c_comm_dup(cworld, cdup) == MPI_SUCCESS, 'C dup')
    fdup = MPI_Comm_c2f(cdup)
    call check(fdup /= MPI_COMM_WORLD .and. fdup /= MPI_COMM_NULL, 'c2f of a new comm')
    call check(c_associated(MPI_Comm_f2c(fdup), cdup), 'f2c(c2f(c)) is c')
    call MPI_Comm_size(fdup, fsize, ierr)
    call check(ierr == MPI_SUCCESS .and. fsize == size, 'Fortran uses a C communicator')
    call MPI_Barrier(fdup, ierr)
    call MPI_Comm_free(fdup, ierr)
    call check(fdup == MPI_COMM_NULL, 'free of a C communicator')

    ! Fortran datatypes seen from C
    types = [MPI_INTEGER, MPI_REAL, MPI_DOUBLE_PRECISION, MPI_COMPLEX, MPI_DOUBLE_COMPLEX, &
             MPI_LOGICAL, MPI_2INTEGER, MPI_2DOUBLE_PRECISION]
    sizes = [4, 4, 8, 8, 16, 4, 8, 16]
    do i = 1, 8
        ctype = MPI_Type_f2c(types(i))
        call check(c_type_size(ctype, n) == MPI_SUCCESS .and. n == sizes(i), 'C size of a Fortran type')
    end do

    ! statuses both ways
    call MPI_Sendrecv(rank, 1, MPI_INTEGER, rank, 11, n, 1, MPI_INTEGER, rank, 11, &
                      MPI_COMM_WORLD, st, ierr)
    call check(c_status_f2c(st, cst) == MPI_SUCCESS, 'status f2c')
    call check(cst(1) == rank .and. cst(2) == 11, 'C status fields')
    call check(c_status_c2f(cst, st2) == MPI_SUCCESS, 'status c2f')
    call MPI_Get_count(st2, MPI_INTEGER, n, ierr)
    call check(n == 1 .and. st2(MPI_TAG) == 11, 'round-tripped status')
    ! mpi_f08's TYPE(MPI_Status) has the same six INTEGERs (MPI_SOURCE, MPI_TAG, MPI_ERROR first)
    st2 = -1
    call check(c_status_f2f08(st, f08st) == MPI_SUCCESS, 'status f2f08')
    call check(f08st(1) == rank .and. f08st(2) == 11, 'f08 status fields')
    call check(c_status_f082f(f08st, st2) == MPI_SUCCESS, 'status f082f')
    call MPI_Get_count(st2, MPI_INTEGER, n, ierr)
    call check(n == 1 .and. st2(MPI_SOURCE) == rank .and. st2(MPI_TAG) == 11, 'f08 round trip')

    call MPI_Finalize(ierr)
contains
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
