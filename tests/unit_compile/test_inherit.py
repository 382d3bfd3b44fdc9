"""Inheritance across build units (LANGUAGE.md 7.5): a base in one module, subclasses and
overrides in others; unit-by-unit builds behave exactly as `nsm run` of the same program."""
from __future__ import annotations

from .test_unit import same_as_nsm_run, write_package

ZOO = {
    "base/animals.nv": """
        class Animal
            str name
            ctor(str name)
                self.name = name
            def str sound()
                ...
            def str intro()
                return self.name + " says " + self.sound()

        def str chorus(array<Animal> all)
            str out = ""
            for a in all
                out += a.intro() + "; "
            return out

        def Function<str, Animal> sounder()
            return Animal.sound
        """,
    "dogs.nv": """
        import base/animals

        class Dog(animals.Animal)
            ctor(str name)
                super(name)
            def str sound()
                return "woof"

        class Puppy(Dog)
            ctor()
                super("pup")
            def str sound()
                return "yip " + super.sound()
        """,
    "main.nv": """
        import base/animals
        import dogs
        from dogs import Dog

        class Cat(animals.Animal)
            int lives
            ctor()
                super("tom")
                self.lives = 9
            def str sound()
                return "meow"

        main
            array<animals.Animal> all = [new Dog("rex"), new dogs.Puppy(), new Cat()]
            print(animals.chorus(all))
            print(animals.sounder()(all[1]), " ", all, " ", isa<Dog>(all[1]), isa<Dog>(all[2]))
            Cat c = Cat(all[2])
            print(c.lives, " ", Dog(all[1]).intro())
            Dog d = Dog(all[2])
        """,
}


def test_subclasses_and_overrides_in_other_modules(tmp_path):
    code, out, err = same_as_nsm_run(write_package(tmp_path / "app", ZOO), tmp_path / "b")
    assert out.splitlines() == [
        "rex says woof; pup says yip woof; tom says meow; ",
        "yip woof [<Dog>, <Puppy>, <Cat>] truefalse",
        "9 pup says yip woof"]
    assert code == 1
    assert err.splitlines()[:2] == [
        "main.nv:19:13: runtime error: failed cast: Animal holds Cat, not Dog", "  at main (main.nv:19:13)"]
