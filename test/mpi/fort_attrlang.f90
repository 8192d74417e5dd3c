! Attribute values across languages (MPI-3.1 17.2.7): a value set from C and read from Fortran
! (MPI_COMM_GET_ATTR's address-sized INTEGER, MPI_ATTR_GET's INTEGER) and the other way round,
! on communicators, datatypes and windows; the predefined attributes from both sides; a
! Fortran MPI_ATTR_PUT value copied by MPI_COMM_DUP_FN and read from C. The C side is called
! through BIND(C).
program fort_attrlang
    use mpi
    use, intrinsic :: iso_c_binding
    implicit none
    interface
        function MPI_Comm_f2c(f) bind(C, name='MPI_Comm_f2c')
            import :: c_int, c_ptr
            integer(c_int), value :: f
            type(c_ptr) :: MPI_Comm_f2c
        end function
        function MPI_Type_f2c(f) bind(C, name='MPI_Type_f2c')
            import :: c_int, c_ptr
            integer(c_int), value :: f
            type(c_ptr) :: MPI_Type_f2c
        end function
        function MPI_Win_f2c(f) bind(C, name='MPI_Win_f2c')
            import :: c_int, c_ptr
            integer(c_int), value :: f
            type(c_ptr) :: MPI_Win_f2c
        end function
        function c_comm_set_attr(c, k, v) bind(C, name='MPI_Comm_set_attr')
            import :: c_int, c_ptr
            type(c_ptr), value :: c, v
            integer(c_int), value :: k
            integer(c_int) :: c_comm_set_attr
        end function
        function c_comm_get_attr(c, k, v, flag) bind(C, name='MPI_Comm_get_attr')
            import :: c_int, c_ptr
            type(c_ptr), value :: c
            integer(c_int), value :: k
            type(c_ptr) :: v
            integer(c_int) :: flag, c_comm_get_attr
        end function
        function c_type_set_attr(c, k, v) bind(C, name='MPI_Type_set_attr')
            import :: c_int, c_ptr
            type(c_ptr), value :: c, v
            integer(c_int), value :: k
            integer(c_int) :: c_type_set_attr
        end function
        function c_type_get_attr(c, k, v, flag) bind(C, name='MPI_Type_get_attr')
            import :: c_int, c_ptr
            type(c_ptr), value :: c
            integer(c_int), value :: k
            type(c_ptr) :: v
            integer(c_int) :: flag, c_type_get_attr
        end function
        function c_win_get_attr(c, k, v, flag) bind(C, name='MPI_Win_get_attr')
            import :: c_int, c_ptr
            type(c_ptr), value :: c
            integer(c_int), value :: k
            type(c_ptr) :: v
            integer(c_int) :: flag, c_win_get_attr
        end function
    end interface
    integer, parameter :: ak = MPI_ADDRESS_KIND
    integer :: rank, ierr, kv, kv2, tkv, ival, dup, tdup, win, cflag
    integer(kind=ak) :: aval, big, wsize
    logical :: flag
    type(c_ptr) :: cworld, cval, cdup
    integer(c_int), pointer :: ip
    integer(c_intptr_t), pointer :: ap
    integer(c_int), target :: cint
    integer, target :: wbuf(16)

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    cworld = MPI_Comm_f2c(MPI_COMM_WORLD)
    call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, kv, 0_ak, ierr)
    call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, kv2, 0_ak, ierr)

    ! C sets a pointer: Fortran reads its address (MPI_ATTR_GET: the low part)
    cint = 42
    call check(c_comm_set_attr(cworld, kv2, c_loc(cint)) == MPI_SUCCESS, 'C set of a pointer')
    call MPI_Comm_get_attr(MPI_COMM_WORLD, kv2, aval, flag, ierr)
    call check(flag .and. aval == transfer(c_loc(cint), 0_c_intptr_t), 'Fortran reads the address')
    call check(c_comm_get_attr(cworld, kv2, cval, cflag) == MPI_SUCCESS .and. cflag /= 0, 'C get')
    call check(c_associated(cval, c_loc(cint)), 'C reads its own pointer back')
    ! C sets an integer in a pointer: Fortran reads the integer, in both kinds
    call check(c_comm_set_attr(cworld, kv2, transfer(17_c_intptr_t, cval)) == MPI_SUCCESS, 'C set 17')
    call MPI_Comm_get_attr(MPI_COMM_WORLD, kv2, aval, flag, ierr)
    call check(flag .and. aval == 17, 'MPI_COMM_GET_ATTR of a C (void *)17')
    ival = -1
    call MPI_Attr_get(MPI_COMM_WORLD, kv2, ival, flag, ierr)
    call check(flag .and. ival == 17, 'MPI_ATTR_GET of a C (void *)17')

    ! MPI_ATTR_PUT's INTEGER: C gets a pointer to it, MPI_COMM_GET_ATTR the value sign-extended
    call MPI_Attr_put(MPI_COMM_WORLD, kv, -7, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_ATTR_PUT')
    call check(c_comm_get_attr(cworld, kv, cval, cflag) == MPI_SUCCESS .and. cflag /= 0, 'C get of an INTEGER')
    call c_f_pointer(cval, ip)
    call check(ip == -7, 'C reads a pointer to the INTEGER')
    call MPI_Comm_get_attr(MPI_COMM_WORLD, kv, aval, flag, ierr)
    call check(flag .and. aval == -7_ak, 'MPI_COMM_GET_ATTR sign-extends an INTEGER')
    call MPI_Attr_get(MPI_COMM_WORLD, kv, ival, flag, ierr)
    call check(flag .and. ival == -7, 'MPI_ATTR_GET of MPI_ATTR_PUT')

    ! MPI_COMM_SET_ATTR's address-sized value: C gets a pointer to it, MPI_ATTR_GET the low part
    big = 2_ak**40 + 3
    call MPI_Comm_set_attr(MPI_COMM_WORLD, kv, big, ierr)
    call check(c_comm_get_attr(cworld, kv, cval, cflag) == MPI_SUCCESS .and. cflag /= 0, 'C get of an AINT')
    call c_f_pointer(cval, ap)
    call check(ap == big, 'C reads a pointer to the address-sized value')
    call MPI_Attr_get(MPI_COMM_WORLD, kv, ival, flag, ierr)
    call check(flag .and. ival == 3, 'MPI_ATTR_GET truncates')
    call MPI_Comm_get_attr(MPI_COMM_WORLD, kv, aval, flag, ierr)
    call check(flag .and. aval == big, 'MPI_COMM_GET_ATTR of MPI_COMM_SET_ATTR')

    ! copied by MPI_COMM_DUP_FN: the copy keeps its language
    call MPI_Attr_put(MPI_COMM_WORLD, kv, 123, ierr)
    call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
    cdup = MPI_Comm_f2c(dup)
    call check(c_comm_get_attr(cdup, kv, cval, cflag) == MPI_SUCCESS .and. cflag /= 0, 'C get on the dup')
    call c_f_pointer(cval, ip)
    call check(ip == 123, 'the dup has the INTEGER')
    call MPI_Comm_get_attr(dup, kv, aval, flag, ierr)
    call check(flag .and. aval == 123, 'Fortran get on the dup')
    call MPI_Comm_get_attr(dup, kv2, aval, flag, ierr)
    call check(.not. flag, 'MPI_COMM_NULL_COPY_FN copies nothing')
    call MPI_Comm_free(dup, ierr)

    ! predefined: Fortran gets the value, C a pointer to it
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, aval, flag, ierr)
    call check(flag .and. aval >= 32767, 'MPI_TAG_UB from Fortran')
    call MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, ival, flag, ierr)
    call check(flag .and. ival == aval, 'MPI_TAG_UB from MPI_ATTR_GET')
    call check(c_comm_get_attr(cworld, MPI_TAG_UB, cval, cflag) == MPI_SUCCESS .and. cflag /= 0, 'C TAG_UB')
    call c_f_pointer(cval, ip)
    call check(ip == ival, 'C reads a pointer to MPI_TAG_UB')
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, aval, flag, ierr)
    call check(flag .and. (aval == 0 .or. aval == 1), 'MPI_WTIME_IS_GLOBAL from Fortran')

    ! datatypes: set from Fortran, read from C; set from C, read from Fortran
    call MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, tkv, 0_ak, ierr)
    call MPI_Type_contiguous(2, MPI_INTEGER, tdup, ierr)
    call MPI_Type_set_attr(tdup, tkv, 99_ak, ierr)
    call check(c_type_get_attr(MPI_Type_f2c(tdup), tkv, cval, cflag) == MPI_SUCCESS .and. cflag /= 0, &
               'C get on a type')
    call c_f_pointer(cval, ap)
    call check(ap == 99, 'C reads a pointer to the type attribute')
    call check(c_type_set_attr(MPI_Type_f2c(tdup), tkv, c_loc(cint)) == MPI_SUCCESS, 'C set on a type')
    call MPI_Type_get_attr(tdup, tkv, aval, flag, ierr)
    call check(flag .and. aval == transfer(c_loc(cint), 0_c_intptr_t), 'Fortran reads a type address')
    call MPI_Type_free(tdup, ierr)
    call MPI_Type_free_keyval(tkv, ierr)

    ! windows: MPI_WIN_SIZE is a value in Fortran, a pointer to an MPI_Aint in C; MPI_WIN_BASE
    ! the address in both
    wsize = 64
    call MPI_Win_create(wbuf, wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
    call MPI_Win_get_attr(win, MPI_WIN_SIZE, aval, flag, ierr)
    call check(flag .and. aval == wsize, 'MPI_WIN_SIZE from Fortran')
    call check(c_win_get_attr(MPI_Win_f2c(win), MPI_WIN_SIZE, cval, cflag) == MPI_SUCCESS, 'C WIN_SIZE')
    call c_f_pointer(cval, ap)
    call check(ap == wsize, 'C reads a pointer to MPI_WIN_SIZE')
    call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, aval, flag, ierr)
    call check(flag .and. aval == 4, 'MPI_WIN_DISP_UNIT from Fortran')
    call MPI_Win_get_attr(win, MPI_WIN_BASE, aval, flag, ierr)
    call check(c_win_get_attr(MPI_Win_f2c(win), MPI_WIN_BASE, cval, cflag) == MPI_SUCCESS, 'C WIN_BASE')
    call check(flag .and. aval == transfer(cval, 0_c_intptr_t) .and. &
               aval == transfer(c_loc(wbuf), 0_c_intptr_t), 'MPI_WIN_BASE is the address from both')
    call MPI_Win_free(win, ierr)

    call MPI_Comm_delete_attr(MPI_COMM_WORLD, kv, ierr)
    call MPI_Comm_delete_attr(MPI_COMM_WORLD, kv2, ierr)
    call MPI_Comm_free_keyval(kv, ierr)
    call MPI_Comm_free_keyval(kv2, ierr)
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
