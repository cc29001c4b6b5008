/*
 * altfile.S - the alt file altlink.S's DWARF refers to: a GNU build-id
 * (fixed, the one the .gnu_debugaltlink section names), the string
 * "alt_named_fn" at .debug_str offset 0, and one empty partial unit (libdw
 * reads a file with DWARF only).
 */
	.section .note.gnu.build-id, "a", @note
	.long	4
	.long	20
	.long	3		/* NT_GNU_BUILD_ID */
	.string	"GNU"
	.byte	0xa1, 0x7f, 0x11, 0xe5, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05
	.byte	0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f

	.section .debug_str, "MS", @progbits, 1
	.string	"alt_named_fn"

	.section .debug_abbrev, "", @progbits
	.uleb128 1		/* DW_TAG_partial_unit, no children */
	.uleb128 0x3c
	.byte	0
	.byte	0, 0
	.byte	0

	.section .debug_info, "", @progbits
	.long	.Lend - .Lstart
.Lstart:
	.value	4
	.long	0
	.byte	8
	.uleb128 1
.Lend:
