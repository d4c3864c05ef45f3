! The smallest model: the Makefile of docs/fortran.md builds it against the static library
! through pkg-config (a test of feature `fortran` runs it).
program model
  use, intrinsic :: iso_c_binding
  use gt4rs_icon
  implicit none
  type(gt4rs_icon_options) :: options
  integer(c_int) :: status
  status = gt4rs_icon_options_new(GT4RS_BACKEND_CPU, options)
  print '(a, i0)', 'options made: status ', status
  status = gt4rs_icon_options_new(7_c_int32_t, options)
  print '(a, i0, a, a)', 'backend 7: status ', status, ': ', gt4rs_icon_last_error()
  call gt4rs_icon_options_free(options)
end program model
