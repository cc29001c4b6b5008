/*
 * altlink.S - a shared object whose DWARF names a function inlined into
 * its one function (alt_fn, its first 32 bytes) through
 * DW_FORM_GNU_strp_alt: the name is in the .debug_str of the file its
 * .gnu_debugaltlink names (altfile.S), as dwz leaves it.
 */
	.text
	.globl	alt_fn
	.type	alt_fn, @function
alt_fn:
	.skip	64, 0
.Lfn_end:
	.size	alt_fn, .-alt_fn

	.section .debug_abbrev, "", @progbits
.Labbrev:
	.uleb128 1		/* DW_TAG_compile_unit, with children */
	.uleb128 0x11
	.byte	1
	.uleb128 0x03		/* DW_AT_name, DW_FORM_string */
	.uleb128 0x08
	.uleb128 0x11		/* DW_AT_low_pc, DW_FORM_addr */
	.uleb128 0x01
	.uleb128 0x12		/* DW_AT_high_pc, DW_FORM_data8 */
	.uleb128 0x07
	.byte	0, 0
	.uleb128 2		/* DW_TAG_subprogram, with children */
	.uleb128 0x2e
	.byte	1
	.uleb128 0x03		/* DW_AT_name, DW_FORM_string */
	.uleb128 0x08
	.uleb128 0x11
	.uleb128 0x01
	.uleb128 0x12
	.uleb128 0x07
	.byte	0, 0
	.uleb128 3		/* DW_TAG_inlined_subroutine, no children */
	.uleb128 0x1d
	.byte	0
	.uleb128 0x6e		/* DW_AT_linkage_name, DW_FORM_GNU_strp_alt */
	.uleb128 0x1f21
	.uleb128 0x11
	.uleb128 0x01
	.uleb128 0x12
	.uleb128 0x07
	.byte	0, 0
	.byte	0

	.section .debug_info, "", @progbits
	.long	.Linfo_end - .Linfo_start
.Linfo_start:
	.value	4		/* DWARF 4 */
	.long	.Labbrev
	.byte	8
	.uleb128 1
	.string	"altlink.S"
	.quad	alt_fn
	.quad	.Lfn_end - alt_fn
	.uleb128 2
	.string	"alt_fn"
	.quad	alt_fn
	.quad	.Lfn_end - alt_fn
	.uleb128 3
	.long	0		/* "alt_named_fn" in the alt file */
	.quad	alt_fn
	.quad	32
	.byte	0		/* the subprogram's children end */
	.byte	0
.Linfo_end:
