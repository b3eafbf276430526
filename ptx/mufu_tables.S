/* The H100's tables for ex2, rcp and rsqrt .approx.f32 (ptx/mufu/, made by
 * tools/mufu-tables.cu), linked in as read-only data for mufu.c. */
    .section .rodata
    .balign 16
    .globl ptx_mufu_ex2_gz, ptx_mufu_ex2_gz_end
ptx_mufu_ex2_gz:
    .incbin "sm90-ex2.bin.gz"
ptx_mufu_ex2_gz_end:
    .balign 16
    .globl ptx_mufu_ex2n_gz, ptx_mufu_ex2n_gz_end
ptx_mufu_ex2n_gz:
    .incbin "sm90-ex2n.bin.gz"
ptx_mufu_ex2n_gz_end:
    .balign 16
    .globl ptx_mufu_rcp_gz, ptx_mufu_rcp_gz_end
ptx_mufu_rcp_gz:
    .incbin "sm90-rcp.bin.gz"
ptx_mufu_rcp_gz_end:
    .balign 16
    .globl ptx_mufu_rsqrt_gz, ptx_mufu_rsqrt_gz_end
ptx_mufu_rsqrt_gz:
    .incbin "sm90-rsqrt.bin.gz"
ptx_mufu_rsqrt_gz_end:
    .section .note.GNU-stack,"",%progbits
