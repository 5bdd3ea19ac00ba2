-- A Sparrow database of schema version 1 (before migrations), made by that build with pg_dump --inserts; see test_migrations.py.
--
-- PostgreSQL database dump
--


-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.events (
    session_id character varying(64) NOT NULL,
    seq integer NOT NULL,
    run_id character varying(64) NOT NULL,
    type character varying(40) NOT NULL,
    ts double precision NOT NULL,
    payload text NOT NULL
);


--
-- Name: memories; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.memories (
    id integer NOT NULL,
    scope character varying(64) NOT NULL,
    text text NOT NULL,
    text_hash character varying(64) NOT NULL,
    origin character varying(16) NOT NULL,
    source_session_id character varying(64),
    created_at double precision NOT NULL
);


--
-- Name: memories_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.memories_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: memories_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.memories_id_seq OWNED BY public.memories.id;


--
-- Name: sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sessions (
    id character varying(64) NOT NULL,
    title character varying(200),
    created_at double precision NOT NULL,
    updated_at double precision NOT NULL,
    last_seq integer NOT NULL,
    config json NOT NULL,
    parent_id character varying(64),
    forked_from character varying(64)
);


--
-- Name: snapshots; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.snapshots (
    id character varying(64) NOT NULL,
    session_id character varying(64) NOT NULL,
    name character varying(200) NOT NULL,
    created_at double precision NOT NULL,
    upto_seq integer NOT NULL,
    title character varying(200),
    config json NOT NULL
);


--
-- Name: sparrow_schema; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sparrow_schema (
    id integer NOT NULL,
    version integer NOT NULL
);


--
-- Name: memories id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.memories ALTER COLUMN id SET DEFAULT nextval('public.memories_id_seq'::regclass);


--
-- Data for Name: events; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.events VALUES ('ses_273c9bff4d914402', 1, 'run_done', 'run_started', 1.5, '{"type":"run_started","run_id":"run_done","ts":1.5,"question":"¿Qué día es? 今天星期几？ \"quoted\" \\ back","model":"m","protocol":"tools","tools":[{"type":"function","function":{"name":"calc","parameters":{"type":"object"}}}],"settings":{"max_steps":3,"time_limit":null,"nested":{"a":[1,2.5,null,true]}}}');
INSERT INTO public.events VALUES ('ses_273c9bff4d914402', 2, 'run_done', 'step_started', 2, '{"type":"step_started","run_id":"run_done","ts":2.0,"step":1,"offered_tools":["calc","clock"]}');
INSERT INTO public.events VALUES ('ses_273c9bff4d914402', 3, 'run_done', 'model_finished', 2.2, '{"type":"model_finished","run_id":"run_done","ts":2.2,"step":1,"model":"m","text":"call calc","reasoning":"think","thought":"I will call","tool_calls":[{"id":"c1","name":"calc","arguments":"{\"x\": 1}"}],"final_answer":null,"format_error":null,"error":null,"usage":{"prompt_tokens":12,"completion_tokens":3,"estimated":true},"latency_ms":12.25,"ttft_ms":null,"finish_reason":"tool_calls","messages":[{"role":"system","content":"s"},{"role":"user","content":"q"}],"messages_kept":0}');
INSERT INTO public.events VALUES ('ses_273c9bff4d914402', 4, 'run_done', 'tool_started', 2.3, '{"type":"tool_started","run_id":"run_done","ts":2.3,"step":1,"call_id":"c1","tool":"calc","arguments":{"x":1}}');
INSERT INTO public.events VALUES ('ses_273c9bff4d914402', 5, 'run_done', 'tool_finished', 2.4, '{"type":"tool_finished","run_id":"run_done","ts":2.4,"step":1,"call_id":"c1","tool":"calc","output":"1","details":{"links":[{"url":"https://example.org","title":"ex"}],"deep":{"a":{"b":{"c":[[]]}}}},"error":null,"duration_ms":0.5,"truncated":true}');
INSERT INTO public.events VALUES ('ses_273c9bff4d914402', 6, 'run_done', 'approval_requested', 2.41, '{"type":"approval_requested","run_id":"run_done","ts":2.41,"step":1,"call_id":"c2","tool":"shell","arguments":{"cmd":"ls"}}');
INSERT INTO public.events VALUES ('ses_273c9bff4d914402', 7, 'run_done', 'approval_decided', 2.42, '{"type":"approval_decided","run_id":"run_done","ts":2.42,"step":1,"call_id":"c2","tool":"shell","approved":false,"by":"policy"}');
INSERT INTO public.events VALUES ('ses_273c9bff4d914402', 8, 'run_done', 'output_flagged', 2.43, '{"type":"output_flagged","run_id":"run_done","ts":2.43,"step":1,"source":"tool_output","findings":[{"kind":"api_key","label":"OpenAI key","masked":"sk-…1234"}],"call_id":"c1"}');
INSERT INTO public.events VALUES ('ses_273c9bff4d914402', 9, 'run_done', 'run_resumed', 2.5, '{"type":"run_resumed","run_id":"run_done","ts":2.5,"from_step":2}');
INSERT INTO public.events VALUES ('ses_273c9bff4d914402', 10, 'run_done', 'final_answer', 2.6, '{"type":"final_answer","run_id":"run_done","ts":2.6,"step":2,"text":"one"}');
INSERT INTO public.events VALUES ('ses_273c9bff4d914402', 11, 'run_done', 'run_finished', 2.7, '{"type":"run_finished","run_id":"run_done","ts":2.7,"status":"completed","final_answer":"one","error":null,"steps":2,"tool_calls":1,"usage":{"prompt_tokens":12,"completion_tokens":3,"estimated":true},"duration_ms":0.0}');
INSERT INTO public.events VALUES ('ses_e5eb13827fd24550', 1, 'run_done', 'run_started', 1.5, '{"type":"run_started","run_id":"run_done","ts":1.5,"question":"¿Qué día es? 今天星期几？ \"quoted\" \\ back","model":"m","protocol":"tools","tools":[{"type":"function","function":{"name":"calc","parameters":{"type":"object"}}}],"settings":{"max_steps":3,"time_limit":null,"nested":{"a":[1,2.5,null,true]}}}');
INSERT INTO public.events VALUES ('ses_e5eb13827fd24550', 2, 'run_done', 'step_started', 2, '{"type":"step_started","run_id":"run_done","ts":2.0,"step":1,"offered_tools":["calc","clock"]}');
INSERT INTO public.events VALUES ('ses_e5eb13827fd24550', 3, 'run_done', 'model_finished', 2.2, '{"type":"model_finished","run_id":"run_done","ts":2.2,"step":1,"model":"m","text":"call calc","reasoning":"think","thought":"I will call","tool_calls":[{"id":"c1","name":"calc","arguments":"{\"x\": 1}"}],"final_answer":null,"format_error":null,"error":null,"usage":{"prompt_tokens":12,"completion_tokens":3,"estimated":true},"latency_ms":12.25,"ttft_ms":null,"finish_reason":"tool_calls","messages":[{"role":"system","content":"s"},{"role":"user","content":"q"}],"messages_kept":0}');
INSERT INTO public.events VALUES ('ses_e5eb13827fd24550', 4, 'run_done', 'tool_started', 2.3, '{"type":"tool_started","run_id":"run_done","ts":2.3,"step":1,"call_id":"c1","tool":"calc","arguments":{"x":1}}');
INSERT INTO public.events VALUES ('ses_e5eb13827fd24550', 5, 'run_done', 'tool_finished', 2.4, '{"type":"tool_finished","run_id":"run_done","ts":2.4,"step":1,"call_id":"c1","tool":"calc","output":"1","details":{"links":[{"url":"https://example.org","title":"ex"}],"deep":{"a":{"b":{"c":[[]]}}}},"error":null,"duration_ms":0.5,"truncated":true}');
INSERT INTO public.events VALUES ('ses_e5eb13827fd24550', 6, 'run_done', 'approval_requested', 2.41, '{"type":"approval_requested","run_id":"run_done","ts":2.41,"step":1,"call_id":"c2","tool":"shell","arguments":{"cmd":"ls"}}');
INSERT INTO public.events VALUES ('ses_e5eb13827fd24550', 7, 'run_done', 'approval_decided', 2.42, '{"type":"approval_decided","run_id":"run_done","ts":2.42,"step":1,"call_id":"c2","tool":"shell","approved":false,"by":"policy"}');
INSERT INTO public.events VALUES ('ses_e5eb13827fd24550', 8, 'run_done', 'output_flagged', 2.43, '{"type":"output_flagged","run_id":"run_done","ts":2.43,"step":1,"source":"tool_output","findings":[{"kind":"api_key","label":"OpenAI key","masked":"sk-…1234"}],"call_id":"c1"}');
INSERT INTO public.events VALUES ('ses_e5eb13827fd24550', 9, 'run_done', 'run_resumed', 2.5, '{"type":"run_resumed","run_id":"run_done","ts":2.5,"from_step":2}');
INSERT INTO public.events VALUES ('ses_e5eb13827fd24550', 10, 'run_done', 'final_answer', 2.6, '{"type":"final_answer","run_id":"run_done","ts":2.6,"step":2,"text":"one"}');
INSERT INTO public.events VALUES ('ses_e5eb13827fd24550', 11, 'run_done', 'run_finished', 2.7, '{"type":"run_finished","run_id":"run_done","ts":2.7,"status":"completed","final_answer":"one","error":null,"steps":2,"tool_calls":1,"usage":{"prompt_tokens":12,"completion_tokens":3,"estimated":true},"duration_ms":0.0}');
INSERT INTO public.events VALUES ('ses_af993b325cd24d54', 1, 'run_cut', 'run_started', 10, '{"type":"run_started","run_id":"run_cut","ts":10.0,"question":"What is 6*7?","model":"m","protocol":"react","tools":[],"settings":{}}');
INSERT INTO public.events VALUES ('ses_af993b325cd24d54', 2, 'run_cut', 'step_started', 10.5, '{"type":"step_started","run_id":"run_cut","ts":10.5,"step":1,"offered_tools":["calculator"]}');


--
-- Data for Name: memories; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.memories VALUES (1, 'default', 'The user prefers green tea over coffee', 'c851b5d9261e665b7e97e98de58c02de422ea7fc6cf7a05d15ead94b3ad50aac', 'user', 'ses_273c9bff4d914402', 1796086098.962138);
INSERT INTO public.memories VALUES (2, 'default', '用户住在上海，喜欢喝龙井茶', '358a26fa4901877b86734903a5df2117e081f15c6f4a26433f07b256b4941750', 'user', NULL, 1796086098.9672825);
INSERT INTO public.memories VALUES (3, 'alice', 'The user works on AI safety in Berlin', 'd89eb50ef8876afecc54722fbb1a5a5f7f5a1e8376b45b246cd13b1037c51ca6', 'user', NULL, 1796086098.970367);


--
-- Data for Name: sessions; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.sessions VALUES ('ses_273c9bff4d914402', '¿Qué día es? 今天星期几？ "quoted" \ back', 1796086098.9420433, 1796086098.9448745, 11, '{"model": "m", "base_url": null, "protocol": "tools", "settings": {"max_steps": 3}}', NULL, NULL);
INSERT INTO public.sessions VALUES ('ses_e5eb13827fd24550', '¿Qué día es? 今天星期几？ "quoted" \ back (before more)', 1796086098.9540546, 1796086098.9540546, 11, '{"model": "m", "base_url": null, "protocol": "tools", "settings": {"max_steps": 3}}', 'ses_273c9bff4d914402', 'snap_5a5df84cc02749e0');
INSERT INTO public.sessions VALUES ('ses_af993b325cd24d54', 'half way', 1796086098.956492, 1796086098.957537, 2, '{"model": "", "base_url": null, "protocol": "react", "settings": {}}', NULL, NULL);


--
-- Data for Name: snapshots; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.snapshots VALUES ('snap_5a5df84cc02749e0', 'ses_273c9bff4d914402', 'before more', 1796086098.9510863, 11, '¿Qué día es? 今天星期几？ "quoted" \ back', '{"model": "m", "base_url": null, "protocol": "tools", "settings": {"max_steps": 3}}');


--
-- Data for Name: sparrow_schema; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.sparrow_schema VALUES (1, 1);


--
-- Name: memories_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.memories_id_seq', 3, true);


--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (session_id, seq);


--
-- Name: memories memories_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.memories
    ADD CONSTRAINT memories_pkey PRIMARY KEY (id);


--
-- Name: memories memories_scope_text_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.memories
    ADD CONSTRAINT memories_scope_text_hash_key UNIQUE (scope, text_hash);


--
-- Name: sessions sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_pkey PRIMARY KEY (id);


--
-- Name: snapshots snapshots_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.snapshots
    ADD CONSTRAINT snapshots_pkey PRIMARY KEY (id);


--
-- Name: snapshots snapshots_session_id_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.snapshots
    ADD CONSTRAINT snapshots_session_id_name_key UNIQUE (session_id, name);


--
-- Name: sparrow_schema sparrow_schema_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sparrow_schema
    ADD CONSTRAINT sparrow_schema_pkey PRIMARY KEY (id);


--
-- Name: ix_memories_scope_created; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_memories_scope_created ON public.memories USING btree (scope, created_at);


--
-- Name: ix_memories_source_session_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_memories_source_session_id ON public.memories USING btree (source_session_id);


--
-- Name: ix_sessions_updated_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_sessions_updated_at ON public.sessions USING btree (updated_at);


--
-- Name: ix_snapshots_session_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_snapshots_session_id ON public.snapshots USING btree (session_id);


--
-- Name: events events_session_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_session_id_fkey FOREIGN KEY (session_id) REFERENCES public.sessions(id) ON DELETE CASCADE;


--
-- Name: sessions sessions_parent_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_parent_id_fkey FOREIGN KEY (parent_id) REFERENCES public.sessions(id) ON DELETE SET NULL;


--
-- Name: snapshots snapshots_session_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.snapshots
    ADD CONSTRAINT snapshots_session_id_fkey FOREIGN KEY (session_id) REFERENCES public.sessions(id) ON DELETE CASCADE;


--
-- PostgreSQL database dump complete
--


