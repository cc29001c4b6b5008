/*
 * dtcxx.cc - C++ accesses with a known answer, for data-type attribution
 * (issue 19): members through `this`, through references, a class
 * reached from a member pointer by container_of (the pointer moved back
 * by the member's offset).  Marked as dtypes.c's: "dt: TYPE +OFFSET
 * (MEMBER)".  Usage: dtcxx [iterations]
 */
#include <cstddef>
#include <cstdio>
#include <cstdlib>

struct list_head {
	list_head *next, *prev;
};

struct item {
	long key;
	int weight;
	list_head link;
};

#define container_of(p, type, member)                                          \
	((type *)((char *)(p) - offsetof(type, member)))

class Account {
public:
	long balance;
	int ops;
	long limit;
	__attribute__((noinline)) void deposit(long v);
	__attribute__((noinline)) long room() const;
};

void Account::deposit(long v)
{
	balance += v; /* dt: Account +0 (balance) */
	ops++;        /* dt: Account +8 (ops) */
}

long Account::room() const
{
	return limit > 0 ? limit : 0; /* dt: Account +16 (limit) */
}

__attribute__((noinline)) long by_ref(const Account &a)
{
	return a.ops > 1 ? a.ops : 1; /* dt: Account +8 (ops) */
}

__attribute__((noinline)) void bump(item &it, int w)
{
	it.weight += w; /* dt: struct item +8 (weight) */
}

__attribute__((noinline)) long sum_items(list_head *head)
{
	long s = 0;

	for (list_head *l = head->next; l != head; l = l->next) { /* dt: struct list_head +0 (next) */
		item *it = container_of(l, item, link);

		s += it->key; /* dt: struct item +0 (key) */
	}
	return s;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 2000;
	static item items[32];
	list_head head = {&head, &head};
	Account acct = {0, 0, 100};
	long total = 0;

	for (int i = 0; i < 32; i++) {
		items[i].key = i;
		items[i].link.next = head.next;
		items[i].link.prev = &head;
		head.next->prev = &items[i].link;
		head.next = &items[i].link;
	}
	for (long n = 0; n < iters; n++) {
		total += sum_items(&head);
		acct.deposit(n & 7);
		total += acct.room() + by_ref(acct);
		bump(items[n & 31], 1);
	}
	printf("%ld %ld\n", total, acct.balance);
	return 0;
}
