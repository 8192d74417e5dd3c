! Fortran 77 style (include 'mpif.h'): point-to-point with statuses, MPI_STATUS_IGNORE,
! collectives on Fortran types (MINLOC/MAXLOC on the pair types, LOGICAL ops), MPI_IN_PLACE,
! strings (processor name, error string, communicator names), LOGICAL flags, request arrays
! and 1-based indices, handle conversions through dup/free, an invalid handle's error class.
! mpif.h has no interfaces: buffers of several types given to one routine need
! test-fflags: -fallow-argument-mismatch
      program fort_f77
      implicit none
      include 'mpif.h'
      integer rank, size, ierr, i, n, left, right, cnt, idx
      integer status(MPI_STATUS_SIZE), stats(MPI_STATUS_SIZE, 2)
      integer reqs(2), ibuf(4), jbuf(4), pair(2), pres(2)
      double precision d, dsum, dpair(2), dres(2)
      real rpair(2), rres(2)
      logical flag, lv, lres
      character*(MPI_MAX_PROCESSOR_NAME) pname
      character*(MPI_MAX_ERROR_STRING) estr
      character*(MPI_MAX_OBJECT_NAME) cname
      integer dup, eclass
      integer(kind=MPI_ADDRESS_KIND) tagub
      double precision t0

      call MPI_INIT(ierr)
      call check(ierr .eq. MPI_SUCCESS, 'MPI_Init ierror')
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      call MPI_COMM_SIZE(MPI_COMM_WORLD, size, ierr)
      call check(size .ge. 1 .and. rank .lt. size, 'rank/size')
      t0 = MPI_WTIME()
      call check(t0 .gt. 0.0d0, 'MPI_Wtime')

!     ring exchange with a status
      right = mod(rank + 1, size)
      left = mod(rank + size - 1, size)
      do i = 1, 4
         ibuf(i) = rank * 10 + i
      end do
      call MPI_SENDRECV(ibuf, 4, MPI_INTEGER, right, 7, jbuf, 4,
     &     MPI_INTEGER, left, 7, MPI_COMM_WORLD, status, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'sendrecv ierror')
      call check(status(MPI_SOURCE) .eq. left, 'status MPI_SOURCE')
      call check(status(MPI_TAG) .eq. 7, 'status MPI_TAG')
      call MPI_GET_COUNT(status, MPI_INTEGER, cnt, ierr)
      call check(cnt .eq. 4, 'MPI_Get_count')
      do i = 1, 4
         call check(jbuf(i) .eq. left * 10 + i, 'sendrecv data')
      end do
      call MPI_SENDRECV(ibuf, 1, MPI_INTEGER, right, 8, jbuf, 1,
     &     MPI_INTEGER, left, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE,
     &     ierr)
      call check(jbuf(1) .eq. left * 10 + 1, 'status ignore')

!     nonblocking: Test's LOGICAL flag, Waitany's 1-based index, Waitall's statuses
      call MPI_IRECV(jbuf, 2, MPI_INTEGER, left, 9, MPI_COMM_WORLD,
     &     reqs(1), ierr)
      call MPI_ISEND(ibuf, 2, MPI_INTEGER, right, 9, MPI_COMM_WORLD,
     &     reqs(2), ierr)
      flag = .false.
      n = 0
 10   call MPI_TEST(reqs(1), flag, status, ierr)
      n = n + 1
      if (.not. flag) goto 10
      call check(reqs(1) .eq. MPI_REQUEST_NULL, 'Test frees request')
      call check(status(MPI_SOURCE) .eq. left, 'Test status')
      call MPI_WAITANY(2, reqs, idx, status, ierr)
      call check(idx .eq. 2, 'Waitany index is 1-based')
      call MPI_IRECV(jbuf, 2, MPI_INTEGER, left, 10, MPI_COMM_WORLD,
     &     reqs(1), ierr)
      call MPI_ISEND(ibuf, 2, MPI_INTEGER, right, 10, MPI_COMM_WORLD,
     &     reqs(2), ierr)
      call MPI_WAITALL(2, reqs, stats, ierr)
      call check(stats(MPI_SOURCE, 1) .eq. left, 'Waitall statuses')
      call check(stats(MPI_TAG, 1) .eq. 10, 'Waitall status tag')
      call check(reqs(1) .eq. MPI_REQUEST_NULL .and.
     &     reqs(2) .eq. MPI_REQUEST_NULL, 'Waitall frees')

!     reductions on Fortran types
      d = dble(rank + 1)
      call MPI_ALLREDUCE(d, dsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      call check(dsum .eq. dble(size * (size + 1) / 2), 'sum double')
      pair(1) = mod(rank, 2) + 5
      pair(2) = rank
      call MPI_ALLREDUCE(pair, pres, 1, MPI_2INTEGER, MPI_MINLOC,
     &     MPI_COMM_WORLD, ierr)
      call check(pres(1) .eq. 5 .and. pres(2) .eq. 0, 'minloc 2int')
      dpair(1) = -dble(abs(rank - size / 2))
      dpair(2) = dble(rank)
      call MPI_ALLREDUCE(dpair, dres, 1, MPI_2DOUBLE_PRECISION,
     &     MPI_MINLOC, MPI_COMM_WORLD, ierr)
      call check(dres(1) .eq. -dble(size / 2), 'minloc 2double value')
      call check(dres(2) .eq. 0.0d0, 'minloc 2double index')
      rpair(1) = real(rank)
      rpair(2) = real(rank)
      call MPI_ALLREDUCE(rpair, rres, 1, MPI_2REAL, MPI_MAXLOC,
     &     MPI_COMM_WORLD, ierr)
      call check(rres(1) .eq. real(size - 1), 'maxloc 2real')
      call check(rres(2) .eq. real(size - 1), 'maxloc 2real index')
      lv = rank .eq. 0
      call MPI_ALLREDUCE(lv, lres, 1, MPI_LOGICAL, MPI_LOR,
     &     MPI_COMM_WORLD, ierr)
      call check(lres, 'LOR logical')
      call MPI_ALLREDUCE(lv, lres, 1, MPI_LOGICAL, MPI_LAND,
     &     MPI_COMM_WORLD, ierr)
      call check(lres .eqv. (size .eq. 1), 'LAND logical')
      ibuf(1) = rank
      call MPI_ALLREDUCE(MPI_IN_PLACE, ibuf, 1, MPI_INTEGER, MPI_MAX,
     &     MPI_COMM_WORLD, ierr)
      call check(ibuf(1) .eq. size - 1, 'in-place max')

!     strings
      pname = 'garbage that must be blanked out'
      call MPI_GET_PROCESSOR_NAME(pname, n, ierr)
      call check(n .gt. 0 .and. n .lt. MPI_MAX_PROCESSOR_NAME,
     &     'processor name length')
      call check(pname(n+1:) .eq. ' ', 'processor name blank padded')
      call MPI_ERROR_STRING(MPI_ERR_TRUNCATE, estr, n, ierr)
      call check(n .gt. 0 .and. estr(n+1:) .eq. ' ', 'error string')
      call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
      call check(dup .ne. MPI_COMM_WORLD .and. dup .ne. MPI_COMM_NULL,
     &     'dup handle')
      call MPI_COMM_SET_NAME(dup, 'fortran dup   ', ierr)
      call MPI_COMM_GET_NAME(dup, cname, n, ierr)
      call check(n .eq. 11, 'comm name trimmed')
      call check(cname .eq. 'fortran dup', 'comm name')
      call MPI_COMM_GET_ATTR(dup, MPI_TAG_UB, tagub, flag, ierr)
      call check(flag .and. tagub .ge. 32767, 'MPI_TAG_UB attribute')
      call MPI_COMM_FREE(dup, ierr)
      call check(dup .eq. MPI_COMM_NULL, 'free sets NULL')

!     an invalid handle gives its error class
      call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN,
     &     ierr)
      call MPI_COMM_SIZE(12345, n, ierr)
      call MPI_ERROR_CLASS(ierr, eclass, i)
      call check(eclass .eq. MPI_ERR_COMM, 'invalid comm class')
      call MPI_SEND(ibuf, 1, 777, 0, 0, MPI_COMM_WORLD, ierr)
      call MPI_ERROR_CLASS(ierr, eclass, i)
      call check(eclass .eq. MPI_ERR_TYPE, 'invalid type class')

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
