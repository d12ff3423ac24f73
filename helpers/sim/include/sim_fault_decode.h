// sim_fault_decode.h -- what the faulting x86-64 instruction touched (included by sim_signals.h).
//
// A page fault gives the signal handler its address (si_addr). A general-protection fault gives
// none (si_code SI_KERNEL, si_addr 0): x86 raises one for an SSE or AVX instruction that needs its
// memory operand aligned to the vector's size (movaps and movdqa, and the SSE arithmetic that
// takes a 16-byte operand: what g++ makes of a uint4 or float4 load or store, which it may take
// to be 16-byte aligned) at an address that is not, and for an address that cannot exist (not
// canonical: its top 17 bits not all equal, as in a pointer made of junk bytes). A GPU calls the
// first "misaligned address". This reads the instruction's memory operand from its encoding
// (prefixes, REX or VEX, the opcode, ModRM, SIB and displacement) and the registers the signal
// saved, so that Python can tell the two apart and name the address (run/report.py).
// EVEX (AVX-512), string instructions and operands without a ModRM byte are not read.
#pragma once

#include <stdint.h>
#include <string.h>
#include <ucontext.h>

#if defined(__linux__) && defined(__x86_64__)
#include <asm/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#pragma GCC visibility push(hidden)
namespace sim {

#if defined(__linux__) && defined(__x86_64__)
inline uint64_t &x86_register(greg_t *g, int r) {
    static const int kIndex[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP,
                                   REG_RSI, REG_RDI, REG_R8,  REG_R9,  REG_R10, REG_R11,
                                   REG_R12, REG_R13, REG_R14, REG_R15};
    return (uint64_t &)g[kIndex[r]];
}

inline int32_t x86_disp32(const uint8_t *p) {
    int32_t d;
    memcpy(&d, p, 4);
    return d;
}

// The address of the memory operand whose ModRM byte is at p (REX bits in rex), p moved past the
// ModRM, SIB and displacement bytes; false for a register operand (p then just past the ModRM).
// A RIP-relative operand counts from the instruction's end: imm, the immediate's bytes, after p.
inline bool x86_memory_operand(greg_t *g, const uint8_t *&p, int rex, int imm, uintptr_t &address) {
    int modrm = *p++, mod = modrm >> 6, rm = (modrm & 7) | (rex & 1) << 3;
    if (mod == 3) return false;
    bool rip_relative = false;
    address = 0;
    if ((rm & 7) == 4) {  // a SIB byte: base + index * scale
        int sib = *p++, index = (sib >> 3 & 7) | (rex & 2) << 2, base = (sib & 7) | (rex & 1) << 3;
        if (index != 4) address += x86_register(g, index) << (sib >> 6);
        if ((sib & 7) == 5 && mod == 0) address += (int64_t)x86_disp32(p), p += 4;
        else address += x86_register(g, base);
    } else if ((rm & 7) == 5 && mod == 0) {
        rip_relative = true;
    } else {
        address = x86_register(g, rm);
    }
    if (mod == 1) address += (int8_t)*p++;
    if (mod == 2 || rip_relative) address += (int64_t)x86_disp32(p), p += 4;
    if (rip_relative) address += (uintptr_t)p + imm;
    return true;
}

// What an instruction of a map (0: one byte, 1: 0F, 2: 0F 38, 3: 0F 3A) reads or writes: whether
// it has a ModRM byte, its immediate's bytes (osize16: a 66 prefix), whether it stores (1), loads
// (0) or either (-1), and the alignment its memory operand needs where it is a vector's.
struct X86Operand {
    bool modrm;
    int imm, is_write, alignment;
};

inline X86Operand x86_one_byte_operand(int op, int reg, bool osize16) {
    int imm32 = osize16 ? 2 : 4;
    bool alu = op < 0x40 && (op & 7) < 4;  // add, or, adc, sbb, and, sub, xor, cmp with ModRM
    if (alu) return {true, 0, (op & 2) || (op & 0xF8) == 0x38 ? 0 : 1, 0};
    switch (op) {
    case 0x63: case 0x8A: case 0x8B: case 0x84: case 0x85: case 0x8D: return {true, 0, 0, 0};
    case 0x88: case 0x89: return {true, 0, 1, 0};
    case 0x86: case 0x87: case 0xD0: case 0xD1: case 0xD2: case 0xD3: case 0xFE: case 0xFF:
    case 0x8F: return {true, 0, -1, 0};
    case 0xC6: return {true, 1, 1, 0};
    case 0xC7: return {true, imm32, 1, 0};
    case 0x80: case 0x82: case 0x83: case 0xC0: case 0xC1: return {true, 1, -1, 0};
    case 0x81: return {true, imm32, -1, 0};
    case 0x6B: return {true, 1, 0, 0};
    case 0x69: return {true, imm32, 0, 0};
    case 0xF6: return {true, reg < 2 ? 1 : 0, reg < 2 ? 0 : -1, 0};
    case 0xF7: return {true, reg < 2 ? imm32 : 0, reg < 2 ? 0 : -1, 0};
    default: return {op >= 0xD8 && op <= 0xDF, 0, -1, 0};  // x87 (with ModRM); else none read
    }
}

// The 0F, 0F 38 and 0F 3A maps' vector instructions (legacy SSE, or VEX with `vector` bytes):
// the aligned stores (movaps, movapd, movdqa, movntps, movntdq) write; the rest read.
inline X86Operand x86_vector_operand(int map, int op, int vector) {
    if (map == 3) return {true, 1, 0, vector};
    if (map == 2) return {true, 0, 0, vector};
    static const uint8_t kNoModrm[] = {0x05, 0x06, 0x07, 0x08, 0x09, 0x0B, 0x0E, 0x30, 0x31, 0x32,
                                       0x33, 0x34, 0x35, 0x37, 0x77, 0xA0, 0xA1, 0xA2, 0xA8, 0xA9, 0xAA};
    for (uint8_t n : kNoModrm)
        if (op == n) return {false, 0, -1, 0};
    if ((op >= 0x80 && op <= 0x8F) || (op >= 0xC8 && op <= 0xCF)) return {false, 0, -1, 0};
    bool imm8 = (op >= 0x70 && op <= 0x73) || op == 0xC2 || op == 0xC4 || op == 0xC5 ||
                op == 0xC6 || op == 0xA4 || op == 0xAC || op == 0xBA;
    bool store = op == 0x29 || op == 0x2B || op == 0x7F || op == 0xE7;
    return {true, imm8 ? 1 : 0, store ? 1 : 0, vector};
}

// The faulting instruction's memory operand: its address, whether it is a store (1), a load (0)
// or not known (-1), and the alignment it needs (16: an SSE vector; 32: AVX's; 0: none). False
// where the instruction is not one this reads.
inline bool x86_faulting_operand(void *ctx, uintptr_t &address, int &is_write, int &alignment) {
    greg_t *g = ((ucontext_t *)ctx)->uc_mcontext.gregs;
    const uint8_t *p = (const uint8_t *)g[REG_RIP];
    int rex = 0, segment = 0, map = 0, vector = 16;
    bool osize16 = false, address32 = false;
    for (;; p++) {  // prefixes
        if (*p == 0x66) osize16 = true;
        else if (*p == 0x67) address32 = true;
        else if (*p == 0x64 || *p == 0x65) segment = *p;
        else if (!(*p == 0xF0 || *p == 0xF2 || *p == 0xF3 || *p == 0x2E || *p == 0x36 ||
                   *p == 0x3E || *p == 0x26)) break;
    }
    if (*p == 0xC5) {  // two-byte VEX: R vvvv L pp, the 0F map
        rex = (~p[1] >> 5) & 4, vector = (p[1] & 4) ? 32 : 16, map = 1, p += 2;
    } else if (*p == 0xC4) {  // three-byte VEX: R X B mmmmm, W vvvv L pp
        rex = ((~p[1] >> 5) & 7) | ((p[2] >> 4) & 8), vector = (p[2] & 4) ? 32 : 16;
        map = p[1] & 0x1F, p += 3;
        if (map < 1 || map > 3) return false;
    } else {
        if ((*p & 0xF0) == 0x40) rex = *p++;
        if (*p == 0x62) return false;  // EVEX
        if (*p == 0x0F) {
            p++, map = 1;
            if (*p == 0x38 || *p == 0x3A) map = *p++ == 0x38 ? 2 : 3;
        }
    }
    int op = *p++;
    X86Operand o = map ? x86_vector_operand(map, op, vector)
                       : x86_one_byte_operand(op, *p >> 3 & 7, osize16);
    if (!o.modrm || !x86_memory_operand(g, p, rex, o.imm, address)) return false;
    if (address32) address = (uint32_t)address;
    if (segment) {
        unsigned long base = 0;
        if (syscall(SYS_arch_prctl, segment == 0x64 ? ARCH_GET_FS : ARCH_GET_GS, &base) != 0)
            return false;
        address += base;
    }
    is_write = o.is_write, alignment = o.alignment;
    return true;
}
#endif

}  // namespace sim
#pragma GCC visibility pop
