/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cwe.c - the rule table: crash class -> rule id, CWE, security-severity
 *
 * Rule id, CWE and security-severity per crash class, following
 * CodeQL's CWE picks and GitHub's severity bands.
 *
 * Details: docs/internals.md.
 */
#include "sarif/cwe.h"

#include <ctype.h>
#include <stddef.h>
#include <string.h>

enum {
	R_HBO_W, R_HBO_R, R_HBO, R_SBO_W, R_SBO_R, R_SBO, R_GBO_W, R_GBO_R,
	R_GBO, R_CONTAINER, R_UAF, R_UAR, R_UAS, R_UAP, R_DFREE, R_BADFREE,
	R_MISMATCH, R_OVERLAP, R_NEGSIZE, R_WILD_W, R_WILD_R, R_WILD,
	R_NULL, R_INTOVF, R_UINTOVF, R_SHIFT, R_INDEX, R_DIV, R_MISALIGN,
	R_PTROVF, R_INVVAL, R_NONNULL, R_BADCAST, R_CONV, R_UB, R_UNINIT,
	R_LEAK, R_TIMEOUT, R_OOM, R_STACKOVF, R_ABORT, R_SIGNAL, R_EXIT,
	R_CONSTIN, R_OSCMD, R_RCE, R_SQLI, R_LDAPI, R_XPATHI, R_JNDI,
	R_PATHTRAV, R_SSRF, R_REGEXI, R_SCRIPTI, R_ELI, R_LOADLIB, R_SECEXC,
	R_UNCAUGHT, R_CRASH,
};

static const struct cwe_rule rules[] = {
	[R_HBO_W] = { "crs-ci/heap-buffer-overflow-write",
		"HeapBufferOverflowWrite", "Heap buffer overflow (write)",
		"The program writes past the end or before the start of a "
		"heap allocation. Out-of-bounds heap writes corrupt memory "
		"and are commonly exploitable.", 122, 787, "9.0", 1 },
	[R_HBO_R] = { "crs-ci/heap-buffer-overflow-read",
		"HeapBufferOverflowRead", "Heap buffer overflow (read)",
		"The program reads past the end or before the start of a "
		"heap allocation. Out-of-bounds reads leak memory contents "
		"and crash the program.", 122, 125, "7.5", 1 },
	[R_HBO] = { "crs-ci/heap-buffer-overflow",
		"HeapBufferOverflow", "Heap buffer overflow",
		"The program accesses memory outside a heap allocation.",
		122, 0, "8.0", 1 },
	[R_SBO_W] = { "crs-ci/stack-buffer-overflow-write",
		"StackBufferOverflowWrite", "Stack buffer overflow (write)",
		"The program writes outside a stack variable. Stack "
		"corruption can overwrite return addresses and is commonly "
		"exploitable.", 121, 787, "9.0", 1 },
	[R_SBO_R] = { "crs-ci/stack-buffer-overflow-read",
		"StackBufferOverflowRead", "Stack buffer overflow (read)",
		"The program reads outside a stack variable, leaking stack "
		"contents.", 121, 125, "7.5", 1 },
	[R_SBO] = { "crs-ci/stack-buffer-overflow",
		"StackBufferOverflow", "Stack buffer overflow",
		"The program accesses memory outside a stack variable.",
		121, 0, "8.0", 1 },
	[R_GBO_W] = { "crs-ci/global-buffer-overflow-write",
		"GlobalBufferOverflowWrite", "Global buffer overflow (write)",
		"The program writes outside a global or static variable, "
		"corrupting neighbouring data.", 787, 0, "9.0", 1 },
	[R_GBO_R] = { "crs-ci/global-buffer-overflow-read",
		"GlobalBufferOverflowRead", "Global buffer overflow (read)",
		"The program reads outside a global or static variable.",
		125, 0, "7.5", 1 },
	[R_GBO] = { "crs-ci/global-buffer-overflow",
		"GlobalBufferOverflow", "Global buffer overflow",
		"The program accesses memory outside a global or static "
		"variable.", 119, 0, "8.0", 1 },
	[R_CONTAINER] = { "crs-ci/container-overflow",
		"ContainerOverflow", "Container overflow",
		"The program accesses the unused capacity of a container "
		"(for example past a std::vector's size but inside its "
		"allocation).", 119, 0, "7.0", 1 },
	[R_UAF] = { "crs-ci/heap-use-after-free",
		"HeapUseAfterFree", "Use after free",
		"The program accesses heap memory after it was freed. The "
		"memory may already hold other data; use-after-free is "
		"commonly exploitable.", 416, 0, "9.0", 1 },
	[R_UAR] = { "crs-ci/stack-use-after-return",
		"StackUseAfterReturn", "Stack use after return",
		"The program uses the address of a local variable after its "
		"function returned.", 562, 0, "8.0", 1 },
	[R_UAS] = { "crs-ci/stack-use-after-scope",
		"StackUseAfterScope", "Stack use after scope",
		"The program uses a local variable after the scope that "
		"declared it ended.", 825, 0, "8.0", 1 },
	[R_UAP] = { "crs-ci/use-after-poison",
		"UseAfterPoison", "Use of poisoned memory",
		"The program accesses memory that was marked unusable "
		"(poisoned), usually memory returned to a custom allocator.",
		825, 0, "7.5", 1 },
	[R_DFREE] = { "crs-ci/double-free", "DoubleFree", "Double free",
		"The program frees the same heap allocation twice, "
		"corrupting the allocator's state; commonly exploitable.",
		415, 0, "9.0", 1 },
	[R_BADFREE] = { "crs-ci/bad-free", "BadFree",
		"Free of an invalid pointer",
		"The program frees a pointer that does not point to the "
		"start of a heap allocation.", 763, 0, "8.0", 1 },
	[R_MISMATCH] = { "crs-ci/alloc-dealloc-mismatch",
		"AllocDeallocMismatch", "Mismatched allocation and release",
		"Memory is released with a function that does not match "
		"the one that allocated it (malloc/delete, new[]/delete).",
		762, 0, "5.0", 1 },
	[R_OVERLAP] = { "crs-ci/param-overlap", "ParamOverlap",
		"Overlapping copy",
		"A copy function such as memcpy or strcpy is called with "
		"overlapping source and destination, which is undefined.",
		475, 0, "5.0", 0 },
	[R_NEGSIZE] = { "crs-ci/negative-size-param", "NegativeSizeParam",
		"Negative size passed to a memory function",
		"A memory function receives a negative size, which it reads "
		"as a huge unsigned length.", 195, 0, "7.0", 1 },
	[R_WILD_W] = { "crs-ci/wild-write", "WildWrite",
		"Write to an invalid address",
		"The program writes to an address that is not mapped, such "
		"as a corrupted or uninitialised pointer.", 787, 0, "9.0",
		1 },
	[R_WILD_R] = { "crs-ci/wild-read", "WildRead",
		"Read from an invalid address",
		"The program reads from an address that is not mapped, such "
		"as a corrupted or uninitialised pointer.", 125, 0, "7.0",
		1 },
	[R_WILD] = { "crs-ci/wild-access", "WildAccess",
		"Access to an invalid address",
		"The program accesses an address that is not mapped.", 119,
		0, "7.5", 1 },
	[R_NULL] = { "crs-ci/null-dereference", "NullDereference",
		"Null pointer dereference",
		"The program dereferences a null (or near-null) pointer and "
		"crashes.", 476, 0, "5.5", 0 },
	[R_INTOVF] = { "crs-ci/integer-overflow", "IntegerOverflow",
		"Signed integer overflow",
		"A signed arithmetic operation overflows, which is undefined "
		"behaviour and often leads to wrong sizes or indexes.", 190,
		0, "5.5", 0 },
	[R_UINTOVF] = { "crs-ci/unsigned-integer-overflow",
		"UnsignedIntegerOverflow", "Unsigned integer wrap-around",
		"An unsigned arithmetic operation wraps around, which often "
		"leads to wrong sizes or indexes.", 190, 0, "3.0", 0 },
	[R_SHIFT] = { "crs-ci/undefined-shift", "UndefinedShift",
		"Invalid shift",
		"A shift uses a negative or too large exponent, or shifts a "
		"negative value; the result is undefined.", 1335, 0, "4.0",
		0 },
	[R_INDEX] = { "crs-ci/index-out-of-bounds", "IndexOutOfBounds",
		"Array index out of bounds",
		"An array is indexed outside its declared bounds, an "
		"out-of-bounds access of a fixed-size array.", 129, 0,
		"7.0", 1 },
	[R_DIV] = { "crs-ci/divide-by-zero", "DivideByZero",
		"Division by zero",
		"An integer division or remainder by zero crashes the "
		"program.", 369, 0, "4.0", 0 },
	[R_MISALIGN] = { "crs-ci/misaligned-address", "MisalignedAddress",
		"Misaligned memory access",
		"The program accesses an object through a pointer that is "
		"not aligned for its type.", 758, 0, "3.0", 0 },
	[R_PTROVF] = { "crs-ci/pointer-overflow", "PointerOverflow",
		"Pointer arithmetic overflow",
		"Pointer arithmetic overflows or moves a null pointer, "
		"producing an out-of-range pointer.", 823, 0, "5.0", 0 },
	[R_INVVAL] = { "crs-ci/invalid-value", "InvalidValue",
		"Invalid bool or enum value",
		"A bool or enum object holds a value outside its type's "
		"range.", 758, 0, "3.0", 0 },
	[R_NONNULL] = { "crs-ci/invalid-null", "InvalidNull",
		"Null where non-null is required",
		"A null pointer is passed to or returned from a function "
		"declared never to take or return null.", 476, 0, "4.0", 0 },
	[R_BADCAST] = { "crs-ci/bad-cast", "BadCast", "Bad cast",
		"An object is used through a pointer of an unrelated "
		"dynamic type (type confusion).", 843, 0, "7.5", 1 },
	[R_CONV] = { "crs-ci/numeric-conversion", "NumericConversion",
		"Lossy numeric conversion",
		"A value is converted to a type that cannot represent it.",
		681, 0, "3.0", 0 },
	[R_UB] = { "crs-ci/undefined-behavior", "UndefinedBehavior",
		"Undefined behaviour",
		"UndefinedBehaviorSanitizer found undefined behaviour that "
		"has no more specific class.", 758, 0, "3.0", 0 },
	[R_UNINIT] = { "crs-ci/use-of-uninitialized-value",
		"UseOfUninitializedValue", "Use of uninitialised memory",
		"A branch, address or system call depends on memory that "
		"was never initialised; it may leak data or misbehave.", 457,
		0, "5.5", 1 },
	[R_LEAK] = { "crs-ci/memory-leak", "MemoryLeak", "Memory leak",
		"Memory allocated while processing the input is never "
		"freed; repeated inputs exhaust memory.", 401, 0, "3.0", 0 },
	[R_TIMEOUT] = { "crs-ci/timeout", "Timeout",
		"Timeout (possible infinite loop)",
		"Processing one input takes longer than the fuzzer's time "
		"limit, usually an infinite or very long loop.", 835, 0,
		"3.5", 0 },
	[R_OOM] = { "crs-ci/out-of-memory", "OutOfMemory",
		"Excessive memory use",
		"Processing one input allocates more memory than the "
		"fuzzer's limit, or asks for an impossible allocation size.",
		400, 0, "3.5", 0 },
	[R_STACKOVF] = { "crs-ci/stack-overflow", "StackOverflow",
		"Stack exhaustion",
		"The call stack is exhausted, usually by unbounded "
		"recursion driven by the input.", 674, 0, "4.0", 0 },
	[R_ABORT] = { "crs-ci/abort", "Abort",
		"Reachable assertion or abort",
		"The input reaches a failing assertion or an abort() call, "
		"which stops the program.", 617, 0, "3.0", 0 },
	[R_SIGNAL] = { "crs-ci/fatal-signal", "FatalSignal",
		"Fatal signal",
		"The program is killed by a signal (for example SIGSEGV or "
		"SIGBUS) that no sanitizer classified further.", 0, 0, "5.0",
		0 },
	[R_EXIT] = { "crs-ci/unexpected-exit", "UnexpectedExit",
		"Unexpected exit",
		"The code under test calls exit() while processing the "
		"input, which ends the whole process.", 0, 0, "2.0", 0 },
	[R_CONSTIN] = { "crs-ci/overwrites-const-input",
		"OverwritesConstInput", "Write to read-only input",
		"The code under test modifies the fuzzer's input buffer, "
		"which it must treat as read-only.", 471, 0, "2.0", 0 },
	[R_OSCMD] = { "crs-ci/os-command-injection", "OsCommandInjection",
		"OS command injection",
		"Input reaches the command line of a process the program "
		"starts, so an attacker can run commands of their choice.",
		78, 0, "9.0", 1 },
	[R_RCE] = { "crs-ci/remote-code-execution", "RemoteCodeExecution",
		"Remote code execution",
		"Input chooses a class to deserialise, instantiate or call "
		"reflectively, which can run code of the attacker's choice "
		"depending on the classes on the classpath.", 502, 470, "9.0",
		1 },
	[R_SQLI] = { "crs-ci/sql-injection", "SqlInjection", "SQL injection",
		"Input changes the structure of an SQL statement the program "
		"runs, letting an attacker read or modify data.", 89, 0,
		"8.0", 1 },
	[R_LDAPI] = { "crs-ci/ldap-injection", "LdapInjection",
		"LDAP injection",
		"Input changes the structure of an LDAP query or "
		"distinguished name the program uses.", 90, 0, "8.0", 1 },
	[R_XPATHI] = { "crs-ci/xpath-injection", "XPathInjection",
		"XPath injection",
		"Input changes the structure of an XPath expression the "
		"program evaluates.", 643, 0, "7.5", 1 },
	[R_JNDI] = { "crs-ci/jndi-lookup", "RemoteJndiLookup",
		"Remote JNDI lookup",
		"Input reaches a JNDI lookup that can fetch and load objects "
		"or classes from a remote server.", 74, 502, "9.0", 1 },
	[R_PATHTRAV] = { "crs-ci/path-traversal", "PathTraversal",
		"File path traversal",
		"Input controls a file path so that the program opens a file "
		"outside the directory it meant to use.", 22, 0, "7.5", 1 },
	[R_SSRF] = { "crs-ci/server-side-request-forgery",
		"ServerSideRequestForgery", "Server-side request forgery",
		"Input controls the host or port the program connects to, "
		"reaching internal services.", 918, 0, "7.5", 1 },
	[R_REGEXI] = { "crs-ci/regex-injection", "RegexInjection",
		"Regular expression injection",
		"Input is compiled as a regular expression, which can be "
		"invalid or take exponential time to match.", 1333, 0, "4.0",
		0 },
	[R_SCRIPTI] = { "crs-ci/script-engine-injection",
		"ScriptEngineInjection", "Script engine injection",
		"Input is evaluated as a script by a script engine, running "
		"code of the attacker's choice.", 94, 0, "9.0", 1 },
	[R_ELI] = { "crs-ci/expression-language-injection",
		"ExpressionLanguageInjection", "Expression language injection",
		"Input is evaluated as an expression language (EL, OGNL, "
		"MVEL) expression, which can call arbitrary methods.", 917, 0,
		"9.0", 1 },
	[R_LOADLIB] = { "crs-ci/load-arbitrary-library",
		"LoadArbitraryLibrary", "Load of an arbitrary native library",
		"Input chooses the native library the program loads, which "
		"runs its code in the process.", 114, 0, "8.0", 1 },
	[R_SECEXC] = { "crs-ci/security-exception", "SecurityException",
		"Security issue reported by the fuzz target",
		"The fuzz target itself reported a security issue "
		"(a Jazzer FuzzerSecurityIssue thrown by the harness).", 0, 0,
		"5.0", 1 },
	[R_UNCAUGHT] = { "crs-ci/uncaught-exception", "UncaughtException",
		"Uncaught exception",
		"A JVM exception that the code under test does not declare or "
		"handle escapes to the caller; callers that do not expect it "
		"can crash.", 248, 0, "2.0", 0 },
	[R_CRASH] = { "crs-ci/crash", "Crash", "Crash",
		"The program crashed on a fuzzer-generated input in a way "
		"crs-ci does not classify further.", 0, 0, "5.0", 0 },
};

enum { ANY, RD, WR };

static const struct {
	const char *key;	/* first word of the crash type, lower case */
	int access;
	int rule;
} keys[] = {
	{ "heap-buffer-overflow", WR, R_HBO_W },
	{ "heap-buffer-overflow", RD, R_HBO_R },
	{ "heap-buffer-overflow", ANY, R_HBO },
	{ "stack-buffer-overflow", WR, R_SBO_W },
	{ "stack-buffer-overflow", RD, R_SBO_R },
	{ "stack-buffer-overflow", ANY, R_SBO },
	{ "dynamic-stack-buffer-overflow", WR, R_SBO_W },
	{ "dynamic-stack-buffer-overflow", RD, R_SBO_R },
	{ "dynamic-stack-buffer-overflow", ANY, R_SBO },
	{ "stack-buffer-underflow", WR, R_SBO_W },
	{ "stack-buffer-underflow", RD, R_SBO_R },
	{ "stack-buffer-underflow", ANY, R_SBO },
	{ "global-buffer-overflow", WR, R_GBO_W },
	{ "global-buffer-overflow", RD, R_GBO_R },
	{ "global-buffer-overflow", ANY, R_GBO },
	{ "container-overflow", ANY, R_CONTAINER },
	{ "heap-use-after-free", ANY, R_UAF },
	{ "use-after-free", ANY, R_UAF },
	{ "stack-use-after-return", ANY, R_UAR },
	{ "stack-use-after-scope", ANY, R_UAS },
	{ "use-after-poison", ANY, R_UAP },
	{ "heap-double-free", ANY, R_DFREE },
	{ "double-free", ANY, R_DFREE },
	{ "bad-free", ANY, R_BADFREE },
	{ "alloc-dealloc-mismatch", ANY, R_MISMATCH },
	{ "new-delete-type-mismatch", ANY, R_MISMATCH },
	{ "memcpy-param-overlap", ANY, R_OVERLAP },
	{ "strcpy-param-overlap", ANY, R_OVERLAP },
	{ "strncpy-param-overlap", ANY, R_OVERLAP },
	{ "strcat-param-overlap", ANY, R_OVERLAP },
	{ "strncat-param-overlap", ANY, R_OVERLAP },
	{ "negative-size-param", ANY, R_NEGSIZE },
	{ "unknown", WR, R_WILD_W },
	{ "unknown", RD, R_WILD_R },
	{ "unknown", ANY, R_WILD },
	{ "unknown-crash", WR, R_WILD_W },
	{ "unknown-crash", RD, R_WILD_R },
	{ "unknown-crash", ANY, R_WILD },
	{ "null-dereference", ANY, R_NULL },
	{ "integer-overflow", ANY, R_INTOVF },
	{ "unsigned-integer-overflow", ANY, R_UINTOVF },
	{ "undefined-shift", ANY, R_SHIFT },
	{ "index-out-of-bounds", ANY, R_INDEX },
	{ "divide-by-zero", ANY, R_DIV },
	{ "floating-point-exception", ANY, R_DIV },
	{ "misaligned-address", ANY, R_MISALIGN },
	{ "pointer-overflow", ANY, R_PTROVF },
	{ "invalid-bool-value", ANY, R_INVVAL },
	{ "invalid-enum-value", ANY, R_INVVAL },
	{ "invalid-null-argument", ANY, R_NONNULL },
	{ "invalid-null-return", ANY, R_NONNULL },
	{ "bad-cast", ANY, R_BADCAST },
	{ "float-cast-overflow", ANY, R_CONV },
	{ "implicit-conversion", ANY, R_CONV },
	{ "undefined-behavior", ANY, R_UB },
	{ "unreachable-code", ANY, R_UB },
	{ "no-return-value", ANY, R_UB },
	{ "non-positive-vla-bound-value", ANY, R_UB },
	{ "incorrect-function-pointer-type", ANY, R_UB },
	{ "invalid-builtin-use", ANY, R_UB },
	{ "use-of-uninitialized-value", ANY, R_UNINIT },
	{ "direct-leak", ANY, R_LEAK },
	{ "indirect-leak", ANY, R_LEAK },
	{ "timeout", ANY, R_TIMEOUT },
	{ "out-of-memory", ANY, R_OOM },
	{ "stack-overflow", ANY, R_STACKOVF },
	{ "assert", ANY, R_ABORT },
	{ "abrt", ANY, R_ABORT },
	{ "fatal-signal", ANY, R_SIGNAL },
	{ "bus-error", ANY, R_SIGNAL },
	{ "ill", ANY, R_SIGNAL },
	{ "trap", ANY, R_SIGNAL },
	{ "unexpected-exit", ANY, R_EXIT },
	{ "overwrites-const-input", ANY, R_CONSTIN },
	{ "os-command-injection", ANY, R_OSCMD },
	{ "remote-code-execution", ANY, R_RCE },
	{ "sql-injection", ANY, R_SQLI },
	{ "ldap-injection", ANY, R_LDAPI },
	{ "xpath-injection", ANY, R_XPATHI },
	{ "remote-jndi-lookup", ANY, R_JNDI },
	{ "file-path-traversal", ANY, R_PATHTRAV },
	{ "server-side-request-forgery", ANY, R_SSRF },
	{ "regular-expression-injection", ANY, R_REGEXI },
	{ "script-engine-injection", ANY, R_SCRIPTI },
	{ "expression-language-injection", ANY, R_ELI },
	{ "load-arbitrary-library", ANY, R_LOADLIB },
	{ "security-exception", ANY, R_SECEXC },
	{ "uncaught-exception", ANY, R_UNCAUGHT },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

const struct cwe_rule *cwe_rule_for(const char *crash_type)
{
	char key[64];
	const char *p = crash_type ? crash_type : "";
	size_t n = 0;
	int access = ANY;

	while (*p && *p != ' ' && n < sizeof(key) - 1)
		key[n++] = (char)tolower((unsigned char)*p++);
	key[n] = '\0';
	while (*p && *p != ' ')
		p++;
	while (*p == ' ')
		p++;
	if (!strncmp(p, "READ", 4))
		access = RD;
	else if (!strncmp(p, "WRITE", 5))
		access = WR;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
			if (strcmp(keys[i].key, key))
				continue;
			if (keys[i].access == (pass ? ANY : access))
				return &rules[keys[i].rule];
		}
	}
	return &rules[R_CRASH];
}
