/*
 * A stand-in for Windows' bcryptprimitives.dll, for running the Windows
 * build under Debian's wine 8, which lacks that DLL: Rust's standard library
 * (>= 1.78) imports ProcessPrng from it for random numbers. This one export
 * gets its bytes from RtlGenRandom (advapi32's SystemFunction036).
 * scripts/cross.mjs builds it with mingw-w64 into the wine prefix's
 * system32; it is never shipped. Real Windows 10+ has the DLL.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
