! MPI-1's calls MPI-3 removed, from mpif.h with MPI-1's default INTEGER addresses and
! displacements: MPI_TYPE_STRUCT with MPI_LB/MPI_UB entries (bounds and extent by
! MPI_TYPE_LB/UB/EXTENT, as MPI_TYPE_GET_EXTENT gives them), MPI_TYPE_HINDEXED and
! MPI_TYPE_HVECTOR against their create_ forms, MPI_ADDRESS (its absolute address may not
! fit a default INTEGER: then MPI_ERR_ARG), MPI_ERRHANDLER_SET/GET.
      program fort_mpi1_f77
      implicit none
      include 'mpif.h'
      integer ierr, t1, t2, lb, ub, ext, eclass, eh, s1, s2
      integer bl(4), types(4), disp(4), a1, a2
      integer(kind=MPI_ADDRESS_KIND) kdisp(4), klb, kext
      double precision x(4)

      call MPI_INIT(ierr)
!     an INTEGER at 0 and a DOUBLE PRECISION at 8, bounds -8 and 32
      bl(1) = 1
      bl(2) = 1
      bl(3) = 1
      bl(4) = 1
      types(1) = MPI_LB
      types(2) = MPI_INTEGER
      types(3) = MPI_DOUBLE_PRECISION
      types(4) = MPI_UB
      disp(1) = -8
      disp(2) = 0
      disp(3) = 8
      disp(4) = 32
      call MPI_TYPE_STRUCT(4, bl, disp, types, t1, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'type_struct ierror')
      call MPI_TYPE_LB(t1, lb, ierr)
      call MPI_TYPE_UB(t1, ub, ierr)
      call MPI_TYPE_EXTENT(t1, ext, ierr)
      call check(lb .eq. -8 .and. ub .eq. 32 .and. ext .eq. 40,
     &     'struct with markers: lb/ub/extent')
      call MPI_TYPE_GET_EXTENT(t1, klb, kext, ierr)
      call check(klb .eq. -8 .and. kext .eq. 40, 'type_get_extent')
      call MPI_TYPE_SIZE(t1, s1, ierr)
      call check(s1 .eq. 12, 'struct with markers: size')
      call MPI_TYPE_FREE(t1, ierr)

!     hindexed with INTEGER displacements against create_hindexed
      disp(1) = 16
      disp(2) = -4
      kdisp(1) = 16
      kdisp(2) = -4
      bl(1) = 2
      call MPI_TYPE_HINDEXED(2, bl, disp, MPI_INTEGER, t1, ierr)
      call MPI_TYPE_CREATE_HINDEXED(2, bl, kdisp, MPI_INTEGER, t2,
     &     ierr)
      call MPI_TYPE_LB(t1, lb, ierr)
      call MPI_TYPE_EXTENT(t1, ext, ierr)
      call MPI_TYPE_GET_EXTENT(t2, klb, kext, ierr)
      call MPI_TYPE_SIZE(t1, s1, ierr)
      call MPI_TYPE_SIZE(t2, s2, ierr)
      call check(lb .eq. klb .and. ext .eq. kext .and. s1 .eq. s2
     &     .and. lb .eq. -4 .and. ext .eq. 28, 'hindexed')
      call MPI_TYPE_FREE(t1, ierr)
      call MPI_TYPE_FREE(t2, ierr)
      call MPI_TYPE_HVECTOR(3, 1, 24, MPI_REAL, t1, ierr)
      call MPI_TYPE_EXTENT(t1, ext, ierr)
      call check(ext .eq. 52, 'hvector extent')
      call MPI_TYPE_FREE(t1, ierr)

      call MPI_ERRHANDLER_SET(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
      call MPI_ERRHANDLER_GET(MPI_COMM_WORLD, eh, ierr)
      call check(eh .eq. MPI_ERRORS_RETURN, 'errhandler_get')
      call MPI_ERRHANDLER_FREE(eh, ierr)
      call MPI_ADDRESS(x(1), a1, ierr)
      if (ierr .eq. MPI_SUCCESS) then
         call MPI_ADDRESS(x(3), a2, ierr)
         call check(a2 - a1 .eq. 16, 'address difference')
      else
         call MPI_ERROR_CLASS(ierr, eclass, ierr)
         call check(eclass .eq. MPI_ERR_ARG, 'address too large')
      end if
      call MPI_FINALIZE(ierr)
      end

      subroutine check(ok, what)
      implicit none
      include 'mpif.h'
      logical ok
      character*(*) what
      integer ierr
      if (.not. ok) then
         write(0,*) 'FAIL: ', what
         call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
      end if
      end
