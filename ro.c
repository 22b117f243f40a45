#include <stdio.h>
struct static_key { int enabled; unsigned long type; };
struct static_key_true { struct static_key key; };
#define PG "4096"
#define DEF_RO(name, en, ty) \
  __asm__(".pushsection __sk_ro_after_init,\"aw\",%progbits\n\t.balign " PG "\n\t.globl " #name "\n\t.type " #name ", %object\n\t.size " #name ", 16\n" #name ":\n\t.long " #en ", 0\n\t.quad " #ty "\n\t.balign " PG "\n\t.popsection"); \
  extern struct static_key_true name
DEF_RO(k1, 1, 1);
DEF_RO(k2, 0, 0);
int x = 5;
extern char __start___sk_ro_after_init[], __stop___sk_ro_after_init[];
int main(void){ printf("%d %lu %d %p %p %p %p\n", k1.key.enabled, k1.key.type, k2.key.enabled, (void*)&k1, (void*)&k2, __start___sk_ro_after_init, __stop___sk_ro_after_init); return 0; }
