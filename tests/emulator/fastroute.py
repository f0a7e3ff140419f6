"""Route lookup by the path's leading literal segments.

aiohttp 3.8 tries the application's resources one after the other (a regex
each) for every request; this tries only those whose canonical path can match
the request's first segment (and, under /toolbox/{id}/, its third), in the
same order.  A path no candidate matches (or one with %-escapes) goes through
aiohttp's own full lookup, so 404/405 answers are unchanged."""

CACHE_MAX = 256


def _key(segs):
    if len(segs) > 1 and segs[1] == "toolbox":
        return ("toolbox", segs[3] if len(segs) > 3 else None)
    return (segs[1] if len(segs) > 1 else "", None)


def _resource_key(resource):
    k = _key(resource.canonical.split("/"))
    return None if any(s and "{" in s for s in k) else k   # None: any path


def install(router):
    """Call after every route is added."""
    full = router.resolve
    keyed = [(_resource_key(r), r) for r in router.resources()]
    cache = {}

    def candidates(k):
        c = cache.get(k)
        if c is None:
            c = [r for rk, r in keyed if rk is None or rk == k]
            if len(cache) < CACHE_MAX:
                cache[k] = c
        return c

    async def resolve(request):
        raw = request.rel_url.raw_path
        if "%" not in raw:
            for r in candidates(_key(raw.split("/"))):
                match, _ = await r.resolve(request)
                if match is not None:
                    return match
        return await full(request)
    router.resolve = resolve
