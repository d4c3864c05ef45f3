! ICON's own loops (mo_nh_diffusion) for the verification mode: the fourth-order divergence
! damping term z_nabla4_e2 and the update of vn by it and by the Smagorinsky term, written from
! ICON's formulas over the driver's (nproma, nlev) arrays and 1-based E2C2V table. Kept in a
! file of its own, so the compiler cannot inline them into the timing loops of the driver.
module icon_loops
  use, intrinsic :: iso_c_binding
  implicit none
  private
  public :: nabla4_loop, apply_to_vn_loop, nabla4_point

contains

  ! z_nabla4_e2 over edges [first, last] and levels [1, nlev] (1-based, inclusive).
  subroutine nabla4_loop(first, last, nlev, e2c2v, u_vert, v_vert, pn_x, pn_y, z_nabla2_e, &
      inv_vert_vert_length, inv_primal_edge_length, z_nabla4_e2)
    integer, intent(in) :: first, last, nlev
    integer(c_int32_t), intent(in) :: e2c2v(:, :, :)
    real(c_double), intent(in) :: u_vert(:, :), v_vert(:, :), pn_x(:, :), pn_y(:, :)
    real(c_double), intent(in) :: z_nabla2_e(:, :), inv_vert_vert_length(:), inv_primal_edge_length(:)
    real(c_double), intent(inout) :: z_nabla4_e2(:, :)
    integer :: je, jk
    do jk = 1, nlev
      do je = first, last
        call nabla4_point(je, jk, e2c2v, u_vert, v_vert, pn_x, pn_y, z_nabla2_e, &
            inv_vert_vert_length, inv_primal_edge_length, z_nabla4_e2)
      end do
    end do
  end subroutine nabla4_loop

  ! One point of z_nabla4_e2 (the arithmetic of one 1-point program call).
  subroutine nabla4_point(je, jk, e2c2v, u_vert, v_vert, pn_x, pn_y, z_nabla2_e, &
      inv_vert_vert_length, inv_primal_edge_length, z_nabla4_e2)
    integer, intent(in) :: je, jk
    integer(c_int32_t), intent(in) :: e2c2v(:, :, :)
    real(c_double), intent(in) :: u_vert(:, :), v_vert(:, :), pn_x(:, :), pn_y(:, :)
    real(c_double), intent(in) :: z_nabla2_e(:, :), inv_vert_vert_length(:), inv_primal_edge_length(:)
    real(c_double), intent(inout) :: z_nabla4_e2(:, :)
    integer :: iv1, iv2, iv3, iv4
    real(c_double) :: nabv_tang, nabv_norm
    iv1 = e2c2v(je, 1, 1); iv2 = e2c2v(je, 1, 2); iv3 = e2c2v(je, 1, 3); iv4 = e2c2v(je, 1, 4)
    nabv_tang = u_vert(iv1, jk) * pn_x(je, 1) + v_vert(iv1, jk) * pn_y(je, 1) &
        + u_vert(iv2, jk) * pn_x(je, 2) + v_vert(iv2, jk) * pn_y(je, 2)
    nabv_norm = u_vert(iv3, jk) * pn_x(je, 3) + v_vert(iv3, jk) * pn_y(je, 3) &
        + u_vert(iv4, jk) * pn_x(je, 4) + v_vert(iv4, jk) * pn_y(je, 4)
    z_nabla4_e2(je, jk) = 4.0_c_double * ((nabv_norm - 2.0_c_double * z_nabla2_e(je, jk)) &
        * (inv_vert_vert_length(je) * inv_vert_vert_length(je)) &
        + (nabv_tang - 2.0_c_double * z_nabla2_e(je, jk)) &
        * (inv_primal_edge_length(je) * inv_primal_edge_length(je)))
  end subroutine nabla4_point

  ! vn += the Smagorinsky and fourth-order terms (ICON's global and limited-area branches):
  ! from edge start_2nd_nudge (1-based) on, area_edge (max(nudgezone_diff nudgecoeff_e,
  ! kh_smag_e) z_nabla2_e - area_edge diff_multfac_vn z_nabla4_e2) on a limited area and
  ! area_edge (kh_smag_e z_nabla2_e - diff_multfac_vn z_nabla4_e2 area_edge) on a global grid;
  ! before it, on a limited area only, area_edge fac_bdydiff_v z_nabla2_e.
  subroutine apply_to_vn_loop(first, last, nlev, start_2nd_nudge, limited_area, area_edge, &
      kh_smag_e, z_nabla2_e, z_nabla4_e2, diff_multfac_vn, nudgecoeff_e, nudgezone_diff, &
      fac_bdydiff_v, vn)
    integer, intent(in) :: first, last, nlev, start_2nd_nudge
    logical, intent(in) :: limited_area
    real(c_double), intent(in) :: area_edge(:), kh_smag_e(:, :), z_nabla2_e(:, :), &
        z_nabla4_e2(:, :), diff_multfac_vn(:), nudgecoeff_e(:), nudgezone_diff, fac_bdydiff_v
    real(c_double), intent(inout) :: vn(:, :)
    integer :: je, jk
    do jk = 1, nlev
      do je = first, last
        if (je >= start_2nd_nudge) then
          if (limited_area) then
            vn(je, jk) = vn(je, jk) + area_edge(je) * (max(nudgezone_diff * nudgecoeff_e(je), &
                kh_smag_e(je, jk)) * z_nabla2_e(je, jk) - area_edge(je) * diff_multfac_vn(jk) &
                * z_nabla4_e2(je, jk))
          else
            vn(je, jk) = vn(je, jk) + area_edge(je) * (kh_smag_e(je, jk) * z_nabla2_e(je, jk) &
                - diff_multfac_vn(jk) * z_nabla4_e2(je, jk) * area_edge(je))
          end if
        else if (limited_area) then
          vn(je, jk) = vn(je, jk) + area_edge(je) * fac_bdydiff_v * z_nabla2_e(je, jk)
        end if
      end do
    end do
  end subroutine apply_to_vn_loop
end module icon_loops
